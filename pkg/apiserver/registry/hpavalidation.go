package registry

// Validation of an autoscaling/v2 HorizontalPodAutoscaler's spec, with
// kube-apiserver 1.37's paths, messages and order (HPAScaleToZero on:
// minReplicas may be 0 with an Object or External metric).

import (
	"fmt"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// hpaMetricTypes are the metric source types, sorted as kube lists them.
var hpaMetricTypes = []string{"ContainerResource", "External", "Object", "Pods", "Resource"}

func validateHPASpec(spec *autoscalingv2.HorizontalPodAutoscalerSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinReplicas != nil && *spec.MinReplicas < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("minReplicas"), *spec.MinReplicas, "must be greater than or equal to 0"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		errs = append(errs, field.Invalid(fldPath.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	if refErrs := validateScaleTargetRef(spec.ScaleTargetRef, fldPath.Child("scaleTargetRef")); len(refErrs) > 0 {
		errs = append(errs, refErrs...)
	} else {
		errs = append(errs, validateHPAMetrics(spec.Metrics, fldPath.Child("metrics"), spec.MinReplicas)...)
	}
	if spec.MaxReplicas < 1 {
		// kube 1.37's declarative rule, reported after the others.
		errs = append(errs, field.Required(fldPath.Child("maxReplicas"), ""))
	}
	return errs
}

// validateScaleTargetRef: kind and name are path segments, and the
// apiVersion names a group.
func validateScaleTargetRef(ref autoscalingv2.CrossVersionObjectReference, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.value == "" {
			errs = append(errs, field.Required(fldPath.Child(f.name), ""))
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.value) {
			errs = append(errs, field.Invalid(fldPath.Child(f.name), f.value, msg))
		}
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	switch {
	case err != nil:
		errs = append(errs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, err.Error()))
	case gv.Group == "":
		errs = append(errs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, "apiVersion must specify API group"))
	}
	return errs
}

func validateHPAMetrics(metrics []autoscalingv2.MetricSpec, fldPath *field.Path, minReplicas *int32) field.ErrorList {
	var errs field.ErrorList
	scalesToZero := false
	for i, m := range metrics {
		errs = append(errs, validateMetricSpec(m, fldPath.Index(i))...)
		if m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType {
			scalesToZero = true
		}
	}
	if minReplicas != nil && *minReplicas == 0 && !scalesToZero {
		errs = append(errs, field.Forbidden(fldPath, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

// validateMetricSpec: a known type, and exactly its source filled in.
func validateMetricSpec(m autoscalingv2.MetricSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m.Type == "" {
		errs = append(errs, field.Required(fldPath.Child("type"), "must specify a metric source type"))
	}
	if !slices.Contains(hpaMetricTypes, string(m.Type)) {
		errs = append(errs, field.NotSupported(fldPath.Child("type"), m.Type, hpaMetricTypes))
	}
	sources := []struct {
		name, typ string
		set       bool
		validate  func() field.ErrorList
	}{
		{"object", "Object", m.Object != nil, func() field.ErrorList {
			return validateTarget(m.Object.Target, fldPath.Child("object", "target"), m.Object.Metric.Name, fldPath.Child("object", "metric", "name"))
		}},
		{"pods", "Pods", m.Pods != nil, func() field.ErrorList {
			return validateTarget(m.Pods.Target, fldPath.Child("pods", "target"), m.Pods.Metric.Name, fldPath.Child("pods", "metric", "name"))
		}},
		{"resource", "Resource", m.Resource != nil, func() field.ErrorList {
			return validateResourceTarget(string(m.Resource.Name), m.Resource.Target, fldPath.Child("resource"))
		}},
		{"external", "External", m.External != nil, func() field.ErrorList {
			return validateTarget(m.External.Target, fldPath.Child("external", "target"), m.External.Metric.Name, fldPath.Child("external", "metric", "name"))
		}},
		{"containerResource", "ContainerResource", m.ContainerResource != nil, func() field.ErrorList {
			e := validateResourceTarget(string(m.ContainerResource.Name), m.ContainerResource.Target, fldPath.Child("containerResource"))
			if m.ContainerResource.Container == "" {
				e = append(e, field.Required(fldPath.Child("containerResource", "container"), "must specify a container"))
			}
			return e
		}},
	}
	present := 0
	for _, s := range sources {
		if s.set {
			if present++; present == 1 {
				errs = append(errs, s.validate()...)
			}
		}
	}
	for _, s := range sources {
		if s.typ == string(m.Type) && !s.set {
			errs = append(errs, field.Required(fldPath.Child(s.name), "must populate information for the given metric source"))
		}
	}
	if present > 1 {
		for _, s := range sources {
			if s.set && s.typ != string(m.Type) {
				errs = append(errs, field.Forbidden(fldPath.Child(s.name), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

func validateTarget(t autoscalingv2.MetricTarget, fldPath *field.Path, metricName string, namePath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if metricName == "" {
		errs = append(errs, field.Required(namePath, "must specify a metric name"))
	}
	errs = append(errs, validateMetricTarget(t, fldPath)...)
	if t.Value == nil && t.AverageValue == nil && t.AverageUtilization == nil {
		errs = append(errs, field.Required(fldPath, "must set either a target value or averageValue"))
	}
	return errs
}

func validateResourceTarget(name string, t autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	}
	errs = append(errs, validateMetricTarget(t, fldPath.Child("target"))...)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(fldPath.Child("target", "averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("target", "averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

func validateMetricTarget(t autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Type == "" {
		errs = append(errs, field.Required(fldPath.Child("type"), "must specify a metric target type"))
	}
	switch t.Type {
	case autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType:
	default:
		errs = append(errs, field.Invalid(fldPath.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	positive := func(q *resource.Quantity, name string) {
		if q != nil && q.Sign() != 1 {
			errs = append(errs, field.Invalid(fldPath.Child(name), q.String(), "must be positive"))
		}
	}
	positive(t.Value, "value")
	positive(t.AverageValue, "averageValue")
	if u := t.AverageUtilization; u != nil && *u < 1 {
		errs = append(errs, field.Invalid(fldPath.Child("averageUtilization"), *u, fmt.Sprintf("must be greater than %d", 0)))
	}
	return errs
}
