package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateStatefulSetSpec follows kube's ValidateStatefulSetSpec, in its
// order (the order of the causes in the 422 answer).
func validateStatefulSetSpec(spec *appsv1.StatefulSetSpec) field.ErrorList {
	var errs field.ErrorList
	switch spec.PodManagementPolicy {
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	case "":
		errs = append(errs, field.Required(specPath.Child("podManagementPolicy"), ""))
	default:
		errs = append(errs, field.Invalid(specPath.Child("podManagementPolicy"), spec.PodManagementPolicy,
			"must be 'OrderedReady' or 'Parallel'"))
	}
	errs = append(errs, validateStatefulSetUpdateStrategy(&spec.UpdateStrategy, specPath.Child("updateStrategy"))...)
	if spec.ServiceName != "" {
		for _, msg := range validation.IsDNS1123Label(spec.ServiceName) {
			errs = append(errs, field.Invalid(specPath.Child("serviceName"), spec.ServiceName, msg))
		}
	}
	errs = append(errs, nonNegative(int64(replicasOr1(spec.Replicas)), specPath.Child("replicas"))...)
	if spec.Ordinals != nil {
		errs = append(errs, nonNegative(int64(spec.Ordinals.Start), specPath.Child("ordinals", "start"))...)
	}
	errs = append(errs, nonNegative(int64(spec.MinReadySeconds), specPath.Child("minReadySeconds"))...)
	return append(errs, validateStatefulSetSelector(spec)...)
}

func validateStatefulSetUpdateStrategy(s *appsv1.StatefulSetUpdateStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.OnDeleteStatefulSetStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Invalid(fldPath.Child("rollingUpdate"), s.RollingUpdate,
				"only allowed for updateStrategy 'RollingUpdate'")}
		}
	case appsv1.RollingUpdateStatefulSetStrategyType:
		if s.RollingUpdate == nil {
			return nil
		}
		ruPath := fldPath.Child("rollingUpdate")
		var errs field.ErrorList
		if s.RollingUpdate.Partition != nil {
			errs = append(errs, nonNegative(int64(*s.RollingUpdate.Partition), ruPath.Child("partition"))...)
		}
		if mu := s.RollingUpdate.MaxUnavailable; mu != nil {
			errs = append(errs, validateIntOrPercent(*mu, ruPath.Child("maxUnavailable"))...)
			if intOrPercentValue(*mu) == 0 {
				errs = append(errs, field.Invalid(ruPath.Child("maxUnavailable"), *mu, "must be greater than 0"))
			}
			if v, isPercent := percentValue(*mu); isPercent && v > 100 {
				errs = append(errs, field.Invalid(ruPath.Child("maxUnavailable"), *mu, "must not be greater than 100%"))
			}
		}
		return errs
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	default:
		return field.ErrorList{field.Invalid(fldPath, s,
			"must be 'RollingUpdate' or 'OnDelete'")}
	}
	return nil
}

// validateStatefulSetSelector checks spec.selector and the template, with
// the StatefulSet wording for an empty selector.
func validateStatefulSetSelector(spec *appsv1.StatefulSetSpec) field.ErrorList {
	var errs field.ErrorList
	selPath := specPath.Child("selector")
	if spec.Selector == nil {
		errs = append(errs, field.Required(selPath, ""))
	} else {
		opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}
		errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector, opts, selPath)...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(selPath, spec.Selector, "empty selector is invalid for statefulset"))
		}
	}
	sel, err := metav1.LabelSelectorAsSelector(spec.Selector)
	if err != nil {
		return append(errs, field.Invalid(selPath, spec.Selector, "invalid label selector"))
	}
	return append(errs, validateTemplateForSelector(&spec.Template, sel, "StatefulSet")...)
}
