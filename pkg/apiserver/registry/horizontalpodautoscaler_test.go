package registry

import (
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

func webHPA() *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: objMeta("web", "default"), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
		MinReplicas:    ptr(int32(1)), MaxReplicas: 5,
		Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(70))},
		}}},
	}}
}

// The messages kube-apiserver 1.37 gave in the reference (section 16).
func TestHPAValidation(t *testing.T) {
	s := hpaStrategy{}
	wantErrors(t, s.Validate(webHPA()))

	zero := webHPA()
	zero.Spec.MinReplicas = ptr(int32(0))
	wantErrors(t, s.Validate(zero), "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas")

	noMax := webHPA()
	noMax.Spec.MaxReplicas = 0
	wantErrors(t, s.Validate(noMax),
		"spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
		"spec.maxReplicas: Required value")

	bad := webHPA()
	bad.Spec.ScaleTargetRef.APIVersion = ""
	bad.Spec.MinReplicas, bad.Spec.MaxReplicas = ptr(int32(5)), 2
	wantErrors(t, s.Validate(bad),
		"spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`",
		`spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group`)

	metric := webHPA()
	metric.Spec.Metrics[0].Resource.Target.AverageUtilization = nil
	wantErrors(t, s.Validate(metric), "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization")
}

func TestHPADefaults(t *testing.T) {
	h := webHPA()
	h.Spec.MinReplicas, h.Spec.Metrics = nil, nil
	h.Status.DesiredReplicas = 3
	hpaStrategy{}.PrepareForCreate(h)
	if *h.Spec.MinReplicas != 1 || len(h.Spec.Metrics) != 1 || *h.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 || h.Status.DesiredReplicas != 0 {
		t.Fatalf("defaults: %+v", h)
	}
}

// A v1 object is checked by v2's rules, after v1's defaults.
func TestHPAV1UsesV2Rules(t *testing.T) {
	s := hpaV1Strategy{}
	h := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: objMeta("web", "default"), Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
		MaxReplicas:    3, TargetCPUUtilizationPercentage: ptr(int32(50)),
	}}
	s.PrepareForCreate(h)
	if *h.Spec.MinReplicas != 1 {
		t.Fatal("v1 minReplicas not defaulted")
	}
	wantErrors(t, s.Validate(h))
	h.Spec.MaxReplicas = 0
	wantErrors(t, s.Validate(h), "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`", "spec.maxReplicas: Required value")
}
