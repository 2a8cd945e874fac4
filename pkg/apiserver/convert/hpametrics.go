package convert

// The metric sources of autoscaling/v2 in v1's older shape (the one the
// v1 annotations hold), and back, with kube's mapping of targets.

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
)

func quantityOrZero(q *resource.Quantity) resource.Quantity {
	if q == nil {
		return resource.Quantity{}
	}
	return q.DeepCopy()
}

func metricSpecToV1(m autoscalingv2.MetricSpec) autoscalingv1.MetricSpec {
	out := autoscalingv1.MetricSpec{Type: autoscalingv1.MetricSourceType(m.Type)}
	switch {
	case m.Object != nil:
		out.Object = &autoscalingv1.ObjectMetricSource{
			Target: autoscalingv1.CrossVersionObjectReference(m.Object.DescribedObject), MetricName: m.Object.Metric.Name,
			TargetValue: quantityOrZero(m.Object.Target.Value), Selector: m.Object.Metric.Selector, AverageValue: m.Object.Target.AverageValue,
		}
	case m.Pods != nil:
		out.Pods = &autoscalingv1.PodsMetricSource{MetricName: m.Pods.Metric.Name,
			TargetAverageValue: quantityOrZero(m.Pods.Target.AverageValue), Selector: m.Pods.Metric.Selector}
	case m.Resource != nil:
		out.Resource = &autoscalingv1.ResourceMetricSource{Name: m.Resource.Name,
			TargetAverageUtilization: m.Resource.Target.AverageUtilization, TargetAverageValue: m.Resource.Target.AverageValue}
	case m.ContainerResource != nil:
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricSource{Name: m.ContainerResource.Name, Container: m.ContainerResource.Container,
			TargetAverageUtilization: m.ContainerResource.Target.AverageUtilization, TargetAverageValue: m.ContainerResource.Target.AverageValue}
	case m.External != nil:
		out.External = &autoscalingv1.ExternalMetricSource{MetricName: m.External.Metric.Name, MetricSelector: m.External.Metric.Selector,
			TargetValue: m.External.Target.Value, TargetAverageValue: m.External.Target.AverageValue}
	}
	return out
}

// utilizationOrValue is the v2 target of a v1 resource source: a
// utilization when one is set, else an average value.
func utilizationOrValue(util *int32, avg *resource.Quantity) autoscalingv2.MetricTarget {
	if util != nil {
		return autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: util, AverageValue: avg}
	}
	return autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: avg}
}

func metricSpecFromV1(m autoscalingv1.MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{Type: autoscalingv2.MetricSourceType(m.Type)}
	switch {
	case m.Object != nil:
		t := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, AverageValue: m.Object.AverageValue}
		if m.Object.AverageValue != nil {
			t.Type = autoscalingv2.AverageValueMetricType
		}
		v := m.Object.TargetValue.DeepCopy()
		t.Value = &v
		out.Object = &autoscalingv2.ObjectMetricSource{DescribedObject: autoscalingv2.CrossVersionObjectReference(m.Object.Target),
			Metric: autoscalingv2.MetricIdentifier{Name: m.Object.MetricName, Selector: m.Object.Selector}, Target: t}
	case m.Pods != nil:
		v := m.Pods.TargetAverageValue.DeepCopy()
		out.Pods = &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: m.Pods.MetricName, Selector: m.Pods.Selector},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &v}}
	case m.Resource != nil:
		out.Resource = &autoscalingv2.ResourceMetricSource{Name: m.Resource.Name,
			Target: utilizationOrValue(m.Resource.TargetAverageUtilization, m.Resource.TargetAverageValue)}
	case m.ContainerResource != nil:
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{Name: m.ContainerResource.Name, Container: m.ContainerResource.Container,
			Target: utilizationOrValue(m.ContainerResource.TargetAverageUtilization, m.ContainerResource.TargetAverageValue)}
	case m.External != nil:
		t := autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: m.External.TargetAverageValue}
		if m.External.TargetValue != nil {
			t.Type, t.Value = autoscalingv2.ValueMetricType, m.External.TargetValue
		}
		out.External = &autoscalingv2.ExternalMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: m.External.MetricName, Selector: m.External.MetricSelector}, Target: t}
	}
	return out
}

func metricStatusToV1(m autoscalingv2.MetricStatus) autoscalingv1.MetricStatus {
	out := autoscalingv1.MetricStatus{Type: autoscalingv1.MetricSourceType(m.Type)}
	switch {
	case m.Object != nil:
		out.Object = &autoscalingv1.ObjectMetricStatus{Target: autoscalingv1.CrossVersionObjectReference(m.Object.DescribedObject),
			MetricName: m.Object.Metric.Name, Selector: m.Object.Metric.Selector,
			CurrentValue: quantityOrZero(m.Object.Current.Value), AverageValue: m.Object.Current.AverageValue}
	case m.Pods != nil:
		out.Pods = &autoscalingv1.PodsMetricStatus{MetricName: m.Pods.Metric.Name, Selector: m.Pods.Metric.Selector,
			CurrentAverageValue: quantityOrZero(m.Pods.Current.AverageValue)}
	case m.Resource != nil:
		out.Resource = &autoscalingv1.ResourceMetricStatus{Name: m.Resource.Name,
			CurrentAverageUtilization: m.Resource.Current.AverageUtilization, CurrentAverageValue: quantityOrZero(m.Resource.Current.AverageValue)}
	case m.ContainerResource != nil:
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricStatus{Name: m.ContainerResource.Name, Container: m.ContainerResource.Container,
			CurrentAverageUtilization: m.ContainerResource.Current.AverageUtilization, CurrentAverageValue: quantityOrZero(m.ContainerResource.Current.AverageValue)}
	case m.External != nil:
		out.External = &autoscalingv1.ExternalMetricStatus{MetricName: m.External.Metric.Name, MetricSelector: m.External.Metric.Selector,
			CurrentValue: quantityOrZero(m.External.Current.Value), CurrentAverageValue: m.External.Current.AverageValue}
	}
	return out
}

func metricStatusFromV1(m autoscalingv1.MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{Type: autoscalingv2.MetricSourceType(m.Type)}
	q := func(v resource.Quantity) *resource.Quantity { c := v.DeepCopy(); return &c }
	switch {
	case m.Object != nil:
		out.Object = &autoscalingv2.ObjectMetricStatus{DescribedObject: autoscalingv2.CrossVersionObjectReference(m.Object.Target),
			Metric:  autoscalingv2.MetricIdentifier{Name: m.Object.MetricName, Selector: m.Object.Selector},
			Current: autoscalingv2.MetricValueStatus{Value: q(m.Object.CurrentValue), AverageValue: m.Object.AverageValue}}
	case m.Pods != nil:
		out.Pods = &autoscalingv2.PodsMetricStatus{Metric: autoscalingv2.MetricIdentifier{Name: m.Pods.MetricName, Selector: m.Pods.Selector},
			Current: autoscalingv2.MetricValueStatus{AverageValue: q(m.Pods.CurrentAverageValue)}}
	case m.Resource != nil:
		out.Resource = &autoscalingv2.ResourceMetricStatus{Name: m.Resource.Name,
			Current: autoscalingv2.MetricValueStatus{AverageUtilization: m.Resource.CurrentAverageUtilization, AverageValue: q(m.Resource.CurrentAverageValue)}}
	case m.ContainerResource != nil:
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: m.ContainerResource.Name, Container: m.ContainerResource.Container,
			Current: autoscalingv2.MetricValueStatus{AverageUtilization: m.ContainerResource.CurrentAverageUtilization, AverageValue: q(m.ContainerResource.CurrentAverageValue)}}
	case m.External != nil:
		out.External = &autoscalingv2.ExternalMetricStatus{Metric: autoscalingv2.MetricIdentifier{Name: m.External.MetricName, Selector: m.External.MetricSelector},
			Current: autoscalingv2.MetricValueStatus{Value: q(m.External.CurrentValue), AverageValue: m.External.CurrentAverageValue}}
	}
	return out
}
