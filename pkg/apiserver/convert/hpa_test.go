package convert

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func i32(v int32) *int32 { return &v }

// v2 → v1 → v2 keeps everything: the CPU target in v1's field, the rest
// in annotations that never show in v2.
func TestHPARoundTrip(t *testing.T) {
	qty := resource.MustParse("100")
	window := int32(60)
	in := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{"keep": "me"}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    i32(1), MaxReplicas: 5,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: "qps"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &qty}}},
				cpuUtilization(70),
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			CurrentReplicas: 2, DesiredReplicas: 3,
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale"}},
		},
	}
	v1, err := HPAToV1(in)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Spec.TargetCPUUtilizationPercentage == nil || *v1.Spec.TargetCPUUtilizationPercentage != 70 {
		t.Fatalf("v1 target: %v", v1.Spec.TargetCPUUtilizationPercentage)
	}
	for _, k := range []string{HPAMetricsAnnotation, HPABehaviorAnnotation, HPAConditionsAnnotation, "keep"} {
		if _, ok := v1.Annotations[k]; !ok {
			t.Errorf("v1 lacks annotation %s: %v", k, v1.Annotations)
		}
	}
	back, err := HPAFromV1(v1)
	if err != nil {
		t.Fatal(err)
	}
	back.TypeMeta = in.TypeMeta
	if !apiequality.Semantic.DeepEqual(in, back) {
		t.Fatalf("round trip:\n in: %+v\nout: %+v", in, back)
	}
}

// A plain v1 object: its CPU target is v2's only metric.
func TestHPAFromPlainV1(t *testing.T) {
	v1, _ := HPAToV1(&autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 3, Metrics: []autoscalingv2.MetricSpec{cpuUtilization(50)}}})
	if v1.Annotations != nil {
		t.Fatalf("annotations on a plain v1: %v", v1.Annotations)
	}
	v2, _ := HPAFromV1(v1)
	if len(v2.Spec.Metrics) != 1 || !isCPUUtilization(v2.Spec.Metrics[0]) || *v2.Spec.Metrics[0].Resource.Target.AverageUtilization != 50 {
		t.Fatalf("metrics: %+v", v2.Spec.Metrics)
	}
}
