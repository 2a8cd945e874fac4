package convert

// HorizontalPodAutoscalers are stored as autoscaling/v2 and served as v1
// too. v1 holds only a CPU utilization target; as kube-apiserver does,
// what v1 cannot hold rides in annotations on the v1 object (the other
// metrics, the current metrics, the conditions and the behavior), so a
// v1 read-modify-write keeps it. The annotations never reach storage.

import (
	"encoding/json"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The annotations v1 objects carry what only v2 can say in (kube's names).
const (
	HPAMetricsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	HPACurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	HPAConditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
	HPABehaviorAnnotation       = "autoscaling.alpha.kubernetes.io/behavior"
)

var hpaAnnotations = []string{HPAMetricsAnnotation, HPACurrentMetricsAnnotation, HPAConditionsAnnotation, HPABehaviorAnnotation}

// HPAToV1 is an autoscaling/v2 HorizontalPodAutoscaler as v1 shows it.
func HPAToV1(in *autoscalingv2.HorizontalPodAutoscaler) (*autoscalingv1.HorizontalPodAutoscaler, error) {
	out := &autoscalingv1.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{Kind: "HorizontalPodAutoscaler", APIVersion: "autoscaling/v1"},
		ObjectMeta: *in.ObjectMeta.DeepCopy(),
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
			MinReplicas:    in.Spec.MinReplicas,
			MaxReplicas:    in.Spec.MaxReplicas,
		},
		Status: autoscalingv1.HorizontalPodAutoscalerStatus{
			ObservedGeneration: in.Status.ObservedGeneration,
			LastScaleTime:      in.Status.LastScaleTime,
			CurrentReplicas:    in.Status.CurrentReplicas,
			DesiredReplicas:    in.Status.DesiredReplicas,
		},
	}
	dropAnnotations(&out.ObjectMeta)
	var other []autoscalingv1.MetricSpec
	for _, m := range in.Spec.Metrics {
		if isCPUUtilization(m) {
			out.Spec.TargetCPUUtilizationPercentage = m.Resource.Target.AverageUtilization
			continue
		}
		other = append(other, metricSpecToV1(m))
	}
	var current []autoscalingv1.MetricStatus
	for _, m := range in.Status.CurrentMetrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = m.Resource.Current.AverageUtilization
		}
		current = append(current, metricStatusToV1(m))
	}
	var conditions []autoscalingv1.HorizontalPodAutoscalerCondition
	for _, c := range in.Status.Conditions {
		conditions = append(conditions, autoscalingv1.HorizontalPodAutoscalerCondition{
			Type: autoscalingv1.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		})
	}
	for _, a := range []struct {
		key  string
		set  bool
		data any
	}{
		{HPAMetricsAnnotation, len(other) > 0, other},
		{HPACurrentMetricsAnnotation, len(current) > 0, current},
		{HPABehaviorAnnotation, in.Spec.Behavior != nil, in.Spec.Behavior},
		{HPAConditionsAnnotation, len(conditions) > 0, conditions},
	} {
		if err := annotate(&out.ObjectMeta, a.key, a.set, a.data); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// HPAFromV1 is an autoscaling/v1 HorizontalPodAutoscaler in v2's form,
// with what the annotations carried put back in its fields.
func HPAFromV1(in *autoscalingv1.HorizontalPodAutoscaler) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	out := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{Kind: "HorizontalPodAutoscaler", APIVersion: "autoscaling/v2"},
		ObjectMeta: *in.ObjectMeta.DeepCopy(),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
			MinReplicas:    in.Spec.MinReplicas,
			MaxReplicas:    in.Spec.MaxReplicas,
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			ObservedGeneration: in.Status.ObservedGeneration,
			LastScaleTime:      in.Status.LastScaleTime,
			CurrentReplicas:    in.Status.CurrentReplicas,
			DesiredReplicas:    in.Status.DesiredReplicas,
		},
	}
	ann := in.Annotations
	var other []autoscalingv1.MetricSpec
	if err := unannotate(ann, HPAMetricsAnnotation, &other); err != nil {
		return nil, err
	}
	for _, m := range other {
		out.Spec.Metrics = append(out.Spec.Metrics, metricSpecFromV1(m))
	}
	if t := in.Spec.TargetCPUUtilizationPercentage; t != nil {
		out.Spec.Metrics = append(out.Spec.Metrics, cpuUtilization(*t))
	}
	var current []autoscalingv1.MetricStatus
	if err := unannotate(ann, HPACurrentMetricsAnnotation, &current); err != nil {
		return nil, err
	}
	for _, m := range current {
		out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, metricStatusFromV1(m))
	}
	if len(current) == 0 && in.Status.CurrentCPUUtilizationPercentage != nil {
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU,
				Current: autoscalingv2.MetricValueStatus{AverageUtilization: in.Status.CurrentCPUUtilizationPercentage}}}}
	}
	if err := unannotate(ann, HPABehaviorAnnotation, &out.Spec.Behavior); err != nil {
		return nil, err
	}
	var conditions []autoscalingv1.HorizontalPodAutoscalerCondition
	if err := unannotate(ann, HPAConditionsAnnotation, &conditions); err != nil {
		return nil, err
	}
	for _, c := range conditions {
		out.Status.Conditions = append(out.Status.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{
			Type: autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		})
	}
	dropAnnotations(&out.ObjectMeta)
	return out, nil
}

// cpuUtilization is the v2 metric of a v1 targetCPUUtilizationPercentage.
func cpuUtilization(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name:   corev1.ResourceCPU,
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent},
	}}
}

// DefaultHPAMetrics is kube's default for a v2 autoscaler with no
// metrics: 80% average CPU utilization.
func DefaultHPAMetrics() []autoscalingv2.MetricSpec {
	return []autoscalingv2.MetricSpec{cpuUtilization(80)}
}

func isCPUUtilization(m autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil &&
		m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil
}

func dropAnnotations(m *metav1.ObjectMeta) {
	if m.Annotations == nil {
		return
	}
	for _, k := range hpaAnnotations {
		delete(m.Annotations, k)
	}
	if len(m.Annotations) == 0 {
		m.Annotations = nil
	}
}

func annotate(m *metav1.ObjectMeta, key string, set bool, data any) error {
	if !set {
		return nil
	}
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[key] = string(b)
	return nil
}

// unannotate decodes the annotation key into into, when present; a value
// that does not decode is ignored, as kube ignores it.
func unannotate(ann map[string]string, key string, into any) error {
	if v, ok := ann[key]; ok {
		_ = json.Unmarshal([]byte(v), into)
	}
	return nil
}
