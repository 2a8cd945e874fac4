package registry

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateDaemonSetSpec follows kube's ValidateDaemonSetSpec, in its order
// (the order of the causes in the 422 answer): the selector, the template
// labels against it, an empty selector, the template, the counters and
// the update strategy.
func validateDaemonSetSpec(spec *appsv1.DaemonSetSpec) field.ErrorList {
	selPath := specPath.Child("selector")
	errs := metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, selPath)
	// A nil selector selects nothing, so the template never matches it; a
	// selector that does not parse is not compared (its errors say why).
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !sel.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(specPath.Child("template", "metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	if spec.Selector != nil && len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(selPath, spec.Selector, "empty selector is invalid for daemonset"))
	}
	// labels.Everything(): the match was checked above.
	errs = append(errs, validateTemplateForSelector(&spec.Template, labels.Everything(), "DaemonSet")...)
	errs = append(errs, nonNegative(int64(spec.MinReadySeconds), specPath.Child("minReadySeconds"))...)
	errs = append(errs, validateDaemonSetUpdateStrategy(&spec.UpdateStrategy, specPath.Child("updateStrategy"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, nonNegative(int64(*spec.RevisionHistoryLimit), specPath.Child("revisionHistoryLimit"))...)
	}
	return errs
}

func validateDaemonSetUpdateStrategy(s *appsv1.DaemonSetUpdateStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
		return nil
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "")}
		}
		return validateRollingUpdateDaemonSet(s.RollingUpdate, fldPath.Child("rollingUpdate"))
	default:
		valid := []string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)}
		return field.ErrorList{field.NotSupported(fldPath, internalStrategy(s), valid)}
	}
}

// internalStrategy is the strategy as kube-apiserver prints it in an
// Unsupported value: its internal struct, whose JSON keys are the Go field
// names ({"Type":"Recreate","RollingUpdate":{"MaxUnavailable":1,"MaxSurge":0}}).
func internalStrategy(s *appsv1.DaemonSetUpdateStrategy) json.Marshaler {
	type rollingUpdate struct {
		MaxUnavailable intstr.IntOrString
		MaxSurge       intstr.IntOrString
	}
	type strategy struct {
		Type          appsv1.DaemonSetUpdateStrategyType
		RollingUpdate *rollingUpdate
	}
	v := strategy{Type: s.Type}
	if ru := s.RollingUpdate; ru != nil {
		v.RollingUpdate = &rollingUpdate{MaxUnavailable: orZero(ru.MaxUnavailable), MaxSurge: orZero(ru.MaxSurge)}
	}
	return jsonValue{v}
}

// jsonValue marshals its value with encoding/json.
type jsonValue struct{ v any }

func (j jsonValue) MarshalJSON() ([]byte, error) { return json.Marshal(j.v) }

// validateRollingUpdateDaemonSet: maxUnavailable and maxSurge are each a
// non-negative int or a percentage up to 100%, and exactly one is non-zero.
func validateRollingUpdateDaemonSet(ru *appsv1.RollingUpdateDaemonSet, fldPath *field.Path) field.ErrorList {
	unavailable, surge := orZero(ru.MaxUnavailable), orZero(ru.MaxSurge)
	uPath, sPath := fldPath.Child("maxUnavailable"), fldPath.Child("maxSurge")
	errs := validateIntOrPercent(unavailable, uPath)
	errs = append(errs, validateIntOrPercent(surge, sPath)...)
	errs = append(errs, notOver100Percent(unavailable, uPath)...)
	errs = append(errs, notOver100Percent(surge, sPath)...)
	hasUnavailable, hasSurge := intOrPercentValue(unavailable) != 0, intOrPercentValue(surge) != 0
	switch {
	case hasUnavailable && hasSurge:
		errs = append(errs, field.Invalid(sPath, surge, "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		errs = append(errs, field.Required(uPath, "cannot be 0 when maxSurge is 0"))
	}
	return errs
}

func notOver100Percent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	if n, isPercent := percentValue(v); isPercent && n > 100 {
		return field.ErrorList{field.Invalid(fldPath, v, "must not be greater than 100%")}
	}
	return nil
}
