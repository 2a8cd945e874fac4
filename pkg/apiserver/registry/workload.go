package registry

// Rules shared by ReplicaSets and Deployments: the selector, the pod
// template it must match, and the autoscaling/v1 Scale view.

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var specPath = field.NewPath("spec")

// validateSelectorAndTemplate checks spec.selector (required, valid, not
// empty) and spec.template against it, with kube's messages. Like kube it
// reports a template mismatch even when the selector is missing (a nil
// selector matches nothing).
func validateSelectorAndTemplate(selector *metav1.LabelSelector, template *corev1.PodTemplateSpec, kindForMessages string) field.ErrorList {
	var errs field.ErrorList
	selPath := specPath.Child("selector")
	if selector == nil {
		errs = append(errs, field.Required(selPath, ""))
	} else {
		opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}
		errs = append(errs, metav1validation.ValidateLabelSelector(selector, opts, selPath)...)
		if len(selector.MatchLabels)+len(selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(selPath, selector, "empty selector is invalid for deployment"))
		}
	}
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return append(errs, field.Invalid(selPath, selector, "invalid label selector"))
	}
	return append(errs, validateTemplateForSelector(template, sel, kindForMessages)...)
}

// validateTemplateForSelector checks spec.template: its labels match the
// selector, its metadata and pod spec are valid, it restarts Always and
// has no active deadline.
func validateTemplateForSelector(t *corev1.PodTemplateSpec, sel labels.Selector, kind string) field.ErrorList {
	var errs field.ErrorList
	tPath := specPath.Child("template")
	if !sel.Empty() && !sel.Matches(labels.Set(t.Labels)) {
		errs = append(errs, field.Invalid(tPath.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(t.Annotations, tPath.Child("metadata", "annotations"))...)
	errs = append(errs, metav1validation.ValidateLabels(t.Labels, tPath.Child("metadata", "labels"))...)
	podSpecPath := tPath.Child("spec")
	errs = append(errs, validatePodSpec(&t.Spec, podSpecPath)...)
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(podSpecPath.Child("restartPolicy"), t.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(podSpecPath.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return errs
}

// nonNegative reports fldPath when v is below zero, in kube's words.
func nonNegative(v int64, fldPath *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateNonnegativeField(v, fldPath)
}

// replicasOr1 reads spec.replicas, which defaulting sets to 1 when absent.
func replicasOr1(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// newScale builds the autoscaling/v1 Scale view of a workload.
func newScale(m *metav1.ObjectMeta, replicas *int32, statusReplicas int32, selector *metav1.LabelSelector) *autoscalingv1.Scale {
	selectorString := ""
	if sel, err := metav1.LabelSelectorAsSelector(selector); err == nil {
		selectorString = sel.String()
	}
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              m.Name,
			Namespace:         m.Namespace,
			UID:               m.UID,
			ResourceVersion:   m.ResourceVersion,
			CreationTimestamp: m.CreationTimestamp,
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: replicasOr1(replicas)},
		Status: autoscalingv1.ScaleStatus{Replicas: statusReplicas, Selector: selectorString},
	}
}

// scaleSubresource serves a workload's autoscaling/v1 Scale: get builds
// it, set writes spec.replicas back. A Scale with negative replicas is
// refused as `Scale.autoscaling "NAME" is invalid`, before the workload's
// own rules run.
func scaleSubresource(get func(runtime.Object) *autoscalingv1.Scale, set func(runtime.Object, int32)) *Subresource {
	return &Subresource{
		Kind: autoscalingv1.SchemeGroupVersion.WithKind("Scale"),
		View: &View{
			New: func() runtime.Object { return &autoscalingv1.Scale{} },
			Get: func(parent runtime.Object) runtime.Object { return get(parent) },
			Validate: func(view runtime.Object) field.ErrorList {
				return nonNegative(int64(view.(*autoscalingv1.Scale).Spec.Replicas), specPath.Child("replicas"))
			},
			Apply: func(parent, view runtime.Object) { set(parent, view.(*autoscalingv1.Scale).Spec.Replicas) },
		},
	}
}

// validateReplicaCounts checks the counters both kinds' status share.
func validateReplicaCounts(statusPath *field.Path, counts map[string]int32) field.ErrorList {
	var errs field.ErrorList
	for _, name := range []string{"replicas", "fullyLabeledReplicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"} {
		if v, ok := counts[name]; ok {
			errs = append(errs, nonNegative(int64(v), statusPath.Child(name))...)
		}
	}
	const overTotal = "cannot be greater than status.replicas"
	for _, name := range []string{"fullyLabeledReplicas", "updatedReplicas", "readyReplicas", "availableReplicas"} {
		if v, ok := counts[name]; ok && v > counts["replicas"] {
			errs = append(errs, field.Invalid(statusPath.Child(name), v, overTotal))
		}
	}
	if counts["availableReplicas"] > counts["readyReplicas"] {
		errs = append(errs, field.Invalid(statusPath.Child("availableReplicas"), counts["availableReplicas"], "cannot be greater than readyReplicas"))
	}
	return errs
}
