package cli

// Reading autoscale's --cpu and --memory targets as kubectl does.

import (
	"fmt"
	"strconv"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// metricTarget is one --cpu or --memory value: a utilization percentage
// ("70%") or an average value ("500m", "2Gi"; a bare number is milli-CPU
// or mebibytes).
type metricTarget struct {
	typ         autoscalingv2.MetricTargetType
	utilization int32
	value       resource.Quantity
}

func parseMetricTarget(input string, res corev1.ResourceName) (metricTarget, error) {
	input = strings.TrimSpace(input)
	if input == "" {
		return metricTarget{}, fmt.Errorf("empty input")
	}
	if pct, ok := strings.CutSuffix(input, "%"); ok {
		v, err := strconv.ParseInt(pct, 10, 32)
		if err != nil || v < 0 {
			return metricTarget{}, fmt.Errorf("invalid percentage value: %s", pct)
		}
		return metricTarget{typ: autoscalingv2.UtilizationMetricType, utilization: int32(v)}, nil
	}
	if f, err := strconv.ParseFloat(input, 64); err == nil {
		unit := "m"
		if res == corev1.ResourceMemory {
			unit = "Mi"
		}
		q, err := resource.ParseQuantity(fmt.Sprintf("%g%s", f, unit))
		if err != nil {
			return metricTarget{}, err
		}
		return metricTarget{typ: autoscalingv2.AverageValueMetricType, value: q}, nil
	}
	q, err := resource.ParseQuantity(input)
	if err != nil {
		return metricTarget{}, fmt.Errorf("invalid resource %s value: %s", res, input)
	}
	return metricTarget{typ: autoscalingv2.AverageValueMetricType, value: q}, nil
}

// metric is the HPA v2 resource metric for this target.
func (t metricTarget) metric(res corev1.ResourceName) autoscalingv2.MetricSpec {
	target := autoscalingv2.MetricTarget{Type: t.typ}
	if t.typ == autoscalingv2.UtilizationMetricType {
		u := t.utilization
		target.AverageUtilization = &u
	} else {
		v := t.value
		target.AverageValue = &v
	}
	return autoscalingv2.MetricSpec{
		Type:     autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: res, Target: target},
	}
}
