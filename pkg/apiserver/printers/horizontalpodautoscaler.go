package printers

import (
	"fmt"
	"strings"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/apiserver/convert"
)

// HorizontalPodAutoscalers is kube-apiserver's Table for autoscaling/v2
// HorizontalPodAutoscalers: NAME, REFERENCE, TARGETS, MINPODS, MAXPODS,
// REPLICAS, AGE, with no wide columns. HorizontalPodAutoscalersV1 is the
// same for the v1 form of the same objects.
var (
	HorizontalPodAutoscalers   = printer{columns: hpaColumns, cells: hpaCells}.table
	HorizontalPodAutoscalersV1 = printer{columns: hpaColumns, cells: hpaV1Cells}.table
)

// Descriptions from autoscaling/v2, the newest form kube-apiserver has.
var hpaColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Reference", "string", autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["scaleTargetRef"], 0),
	col("Targets", "string", autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["metrics"], 0),
	col("MinPods", "string", autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["minReplicas"], 0),
	col("MaxPods", "string", autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["maxReplicas"], 0),
	col("Replicas", "string", autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()["currentReplicas"], 0),
	ageCol(),
}

// hpaCells: MINPODS is a string ("<unset>" when nil), MAXPODS and
// REPLICAS integers, as kube-apiserver renders them.
func hpaCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	ref := h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name
	minPods := "<unset>"
	if h.Spec.MinReplicas != nil {
		minPods = fmt.Sprintf("%d", *h.Spec.MinReplicas)
	}
	return []interface{}{h.Name, ref, hpaTargets(h.Spec.Metrics, h.Status.CurrentMetrics), minPods,
		int64(h.Spec.MaxReplicas), int64(h.Status.CurrentReplicas), age(h.CreationTimestamp, now)}, nil
}

func hpaV1Cells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	h, err := convert.HPAFromV1(obj.(*autoscalingv1.HorizontalPodAutoscaler))
	if err != nil {
		return nil, err
	}
	return hpaCells(h, now)
}

// hpaTargets lists up to two metrics as "current/target" (kubectl's
// TARGETS), "+ N more..." past that.
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	const shown = 2
	var list []string
	for i, spec := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, hpaTarget(spec, st))
	}
	if len(list) <= shown {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s + %d more...", strings.Join(list[:shown], ", "), len(list)-shown)
}

// hpaTarget renders one metric against its status, when there is one.
func hpaTarget(spec autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	const unknown = "<unknown>"
	switch spec.Type {
	case autoscalingv2.ExternalMetricSourceType:
		if spec.External.Target.AverageValue != nil {
			cur := unknown
			if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
				cur = st.External.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", cur, spec.External.Target.AverageValue.String())
		}
		cur := unknown
		if st != nil && st.External != nil {
			cur = st.External.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", cur, spec.External.Target.Value.String())
	case autoscalingv2.PodsMetricSourceType:
		cur := unknown
		if st != nil && st.Pods != nil {
			cur = st.Pods.Current.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s", cur, spec.Pods.Target.AverageValue.String())
	case autoscalingv2.ObjectMetricSourceType:
		if spec.Object.Target.AverageValue != nil {
			cur := unknown
			if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
				cur = st.Object.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", cur, spec.Object.Target.AverageValue.String())
		}
		cur := unknown
		if st != nil && st.Object != nil {
			cur = st.Object.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", cur, spec.Object.Target.Value.String())
	case autoscalingv2.ResourceMetricSourceType:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return string(spec.Resource.Name) + ": " + resourceTarget(spec.Resource.Target, cur)
	case autoscalingv2.ContainerResourceMetricSourceType:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return string(spec.ContainerResource.Name) + ": " + resourceTarget(spec.ContainerResource.Target, cur)
	}
	return "<unknown type>"
}

// resourceTarget is "current/target" of a resource metric: an average
// value, or a utilization ("<auto>" when none is set).
func resourceTarget(t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if t.AverageValue != nil {
		if cur != nil {
			current = cur.AverageValue.String()
		}
		return current + "/" + t.AverageValue.String()
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	target := "<auto>"
	if t.AverageUtilization != nil {
		target = fmt.Sprintf("%d%%", *t.AverageUtilization)
	}
	return current + "/" + target
}
