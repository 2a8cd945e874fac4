package registry

// A Job's spec rules, shared by Jobs and by CronJobs' jobTemplate: kube's
// validateJobSpec, in its order and with its messages.

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits kube puts on Indexed Jobs and managedBy.
const (
	maxParallelismForIndexedJob = 100000
	maxFailedIndexesForIndexed  = 100000
	maxManagedByLength          = 63
)

var (
	completionModes      = []string{string(batchv1.NonIndexedCompletion), string(batchv1.IndexedCompletion)}
	podReplacementValues = []string{string(batchv1.Failed), string(batchv1.TerminatingOrFailed)}
)

func ptrTo[T any](v T) *T { return &v }

// validateJobSpec is kube's validateJobSpec: counts, completion mode,
// policies, the pod template and its restart policy.
func validateJobSpec(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	optionalNonNegative := func(v *int32, name string) {
		if v != nil {
			errs = append(errs, nonNegative(int64(*v), fldPath.Child(name))...)
		}
	}
	optionalNonNegative(spec.Parallelism, "parallelism")
	optionalNonNegative(spec.Completions, "completions")
	if spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, nonNegative(*spec.ActiveDeadlineSeconds, fldPath.Child("activeDeadlineSeconds"))...)
	}
	optionalNonNegative(spec.BackoffLimit, "backoffLimit")
	optionalNonNegative(spec.TTLSecondsAfterFinished, "ttlSecondsAfterFinished")
	optionalNonNegative(spec.BackoffLimitPerIndex, "backoffLimitPerIndex")
	if spec.MaxFailedIndexes != nil {
		errs = append(errs, nonNegative(int64(*spec.MaxFailedIndexes), fldPath.Child("maxFailedIndexes"))...)
		if spec.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Required(fldPath.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if spec.ManagedBy != nil {
		errs = append(errs, validation.IsDomainPrefixedPath(fldPath.Child("managedBy"), *spec.ManagedBy)...)
		if len(*spec.ManagedBy) > maxManagedByLength {
			errs = append(errs, field.TooLong(fldPath.Child("managedBy"), "", maxManagedByLength))
		}
	}
	errs = append(errs, validateCompletionMode(spec, fldPath)...)
	if spec.SuccessPolicy != nil && (spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion) {
		errs = append(errs, field.Invalid(fldPath.Child("successPolicy"), *spec.SuccessPolicy, "requires indexed completion mode"))
	}
	if p := spec.PodReplacementPolicy; p != nil {
		allowed := podReplacementValues
		if spec.PodFailurePolicy != nil {
			allowed = []string{string(batchv1.Failed)}
		}
		if !contains(allowed, string(*p)) {
			errs = append(errs, field.NotSupported(fldPath.Child("podReplacementPolicy"), *p, allowed))
		}
	}
	errs = append(errs, validateJobPodTemplate(&spec.Template, fldPath.Child("template"))...)
	return append(errs, validateJobRestartPolicy(spec, fldPath.Child("template", "spec", "restartPolicy"))...)
}

// validateCompletionMode: a known mode; Indexed needs completions and caps
// parallelism; per-index limits need Indexed.
func validateCompletionMode(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	indexed := spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion
	if m := spec.CompletionMode; m != nil && !contains(completionModes, string(*m)) {
		errs = append(errs, field.NotSupported(fldPath.Child("completionMode"), m, completionModes))
	}
	if indexed {
		if spec.Completions == nil {
			errs = append(errs, field.Required(fldPath.Child("completions"), "when completion mode is Indexed"))
		}
		if spec.Parallelism != nil && *spec.Parallelism > maxParallelismForIndexedJob {
			errs = append(errs, field.Invalid(fldPath.Child("parallelism"), *spec.Parallelism,
				fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxParallelismForIndexedJob)))
		}
		if spec.Completions != nil && spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > *spec.Completions {
			errs = append(errs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "must be less than or equal to completions"))
		}
		if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesForIndexed {
			errs = append(errs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes,
				fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesForIndexed)))
		}
		return errs
	}
	if spec.BackoffLimitPerIndex != nil {
		errs = append(errs, field.Invalid(fldPath.Child("backoffLimitPerIndex"), *spec.BackoffLimitPerIndex, "requires indexed completion mode"))
	}
	if spec.MaxFailedIndexes != nil {
		errs = append(errs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "requires indexed completion mode"))
	}
	return errs
}

// validateJobPodTemplate is kube's ValidatePodTemplateSpec for a Job's
// template: labels, annotations and the pod spec.
func validateJobPodTemplate(t *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(t.Labels, fldPath.Child("metadata", "labels"))
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(t.Annotations, fldPath.Child("metadata", "annotations"))...)
	return append(errs, validatePodSpec(&t.Spec, fldPath.Child("spec"))...)
}

// validateJobRestartPolicy: a Job's pods restart OnFailure or Never. The
// pod default Always counts as unset, hence "Required".
func validateJobRestartPolicy(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	switch p := spec.Template.Spec.RestartPolicy; {
	case p == corev1.RestartPolicyAlways || p == "":
		return field.ErrorList{field.Required(fldPath, `valid values: "OnFailure", "Never"`)}
	case p != corev1.RestartPolicyOnFailure && p != corev1.RestartPolicyNever:
		return field.ErrorList{field.NotSupported(fldPath, p, []string{string(corev1.RestartPolicyOnFailure), string(corev1.RestartPolicyNever)})}
	case spec.PodFailurePolicy != nil && p != corev1.RestartPolicyNever:
		return field.ErrorList{field.Invalid(fldPath, p, `only "Never" is supported when podFailurePolicy is specified`)}
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
