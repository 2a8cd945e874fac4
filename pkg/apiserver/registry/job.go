package registry

// Jobs: batch/v1's defaults (completions and parallelism 1, backoffLimit
// 6, NonIndexed, not suspended, podReplacementPolicy TerminatingOrFailed,
// manualSelector false), the generated selector and pod labels, kube's
// validation, generation on spec changes, and the status subresource.

import (
	"fmt"
	"math"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// jobs is batch/v1 jobs.
func jobs() *Resource {
	s := jobStrategy{}
	return &Resource{
		Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", ListKind: "JobList", Singular: "job",
		Categories: []string{"all"}, Namespaced: true,
		New:     func() runtime.Object { return &batchv1.Job{} },
		NewList: func() runtime.Object { return &batchv1.JobList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Generation:      s.GenerationChanged,
		Table:           printers.Jobs,
		FieldSet:        s.FieldSet,
		OrphanByDefault: true, // batch/v1's old default, kept by kube for compatibility
	}
}

type jobStrategy struct{}

const defaultBackoffLimit = int32(6)

// The unprefixed labels kube still writes beside batch.kubernetes.io/'s
// (k8s.io/api names them only in kube's internal package).
const (
	legacyJobNameLabel       = "job-name"
	legacyControllerUIDLabel = "controller-uid"
)

// defaultJob applies batch/v1's SetDefaults_Job.
func defaultJob(j *batchv1.Job) {
	s := &j.Spec
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = ptrTo(int32(1))
	}
	if s.Parallelism == nil {
		s.Parallelism = ptrTo(int32(1))
	}
	if s.BackoffLimit == nil {
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = ptrTo(int32(math.MaxInt32))
		} else {
			s.BackoffLimit = ptrTo(defaultBackoffLimit)
		}
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptrTo(batchv1.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptrTo(false)
	}
	if s.PodReplacementPolicy == nil {
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = ptrTo(batchv1.Failed)
		} else {
			s.PodReplacementPolicy = ptrTo(batchv1.TerminatingOrFailed)
		}
	}
	if s.ManualSelector == nil {
		s.ManualSelector = ptrTo(false)
	}
	defaultPodTemplate(&s.Template)
}

// jobLabelsFromTemplate gives a Job without labels its template's labels,
// as SetDefaults_Job does. kube-apiserver shares the map, so the labels
// the selector generation adds show on the Job too; a copy taken after
// generating does the same.
func jobLabelsFromTemplate(j *batchv1.Job) {
	if len(j.Labels) == 0 && j.Spec.Template.Labels != nil {
		j.Labels = make(map[string]string, len(j.Spec.Template.Labels))
		for k, v := range j.Spec.Template.Labels {
			j.Labels[k] = v
		}
	}
}

// generateJobSelector adds the labels that tie a Job's pods to it, and the
// selector on batch.kubernetes.io/controller-uid, unless the user chose
// manualSelector. Labels the user set are kept; validation then refuses
// wrong values.
func generateJobSelector(j *batchv1.Job) {
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector {
		return
	}
	t := &j.Spec.Template
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	for _, name := range []string{legacyJobNameLabel, batchv1.JobNameLabel} {
		if _, ok := t.Labels[name]; !ok {
			t.Labels[name] = j.Name
		}
	}
	for _, uid := range []string{legacyControllerUIDLabel, batchv1.ControllerUidLabel} {
		if _, ok := t.Labels[uid]; !ok {
			t.Labels[uid] = string(j.UID)
		}
	}
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{}
	}
	if j.Spec.Selector.MatchLabels == nil {
		j.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !ok {
		j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(j.UID)
	}
}

// PrepareForCreate clears status, applies defaults and generates the
// selector (the handlers have set the uid already).
func (jobStrategy) PrepareForCreate(obj runtime.Object) {
	j := obj.(*batchv1.Job)
	j.Status = batchv1.JobStatus{}
	defaultJob(j)
	generateJobSelector(j)
	jobLabelsFromTemplate(j)
}

// PrepareForUpdate keeps the stored status.
func (jobStrategy) PrepareForUpdate(obj, old runtime.Object) {
	j := obj.(*batchv1.Job)
	j.Status = old.(*batchv1.Job).Status
	defaultJob(j)
	jobLabelsFromTemplate(j)
}

// PrepareForStatusUpdate keeps the stored spec.
func (jobStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*batchv1.Job).Spec = old.(*batchv1.Job).Spec
}

// Validate checks a new Job, in kube's ValidateJob order.
func (jobStrategy) Validate(obj runtime.Object) field.ErrorList {
	j := obj.(*batchv1.Job)
	errs := ValidateMetaCreate(&j.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	errs = append(errs, validateGeneratedSelector(j)...)
	errs = append(errs, validateJobSpecWithSelector(&j.Spec, specPath)...)
	return append(errs, validateIndexedJobName(j)...)
}

// ValidateUpdate checks an update: the spec as on create, and completions,
// selector, pod template and completion mode never change.
func (s jobStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	j, o := obj.(*batchv1.Job), old.(*batchv1.Job)
	errs := ValidateMetaUpdate(&j.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, validateGeneratedSelector(j)...)
	errs = append(errs, validateJobSpecWithSelector(&j.Spec, specPath)...)
	errs = append(errs, validateIndexedJobName(j)...)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(j.Spec.Completions, o.Spec.Completions, specPath.Child("completions"))...)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(j.Spec.Selector, o.Spec.Selector, specPath.Child("selector"))...)
	if !apiequality.Semantic.DeepEqual(j.Spec.Template, o.Spec.Template) {
		errs = append(errs, field.Invalid(specPath.Child("template"), internalPodTemplate(&j.Spec.Template), apimachineryvalidation.FieldImmutableErrorMsg))
	}
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(j.Spec.CompletionMode, o.Spec.CompletionMode, specPath.Child("completionMode"))...)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(j.Spec.PodFailurePolicy, o.Spec.PodFailurePolicy, specPath.Child("podFailurePolicy"))...)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(j.Spec.BackoffLimitPerIndex, o.Spec.BackoffLimitPerIndex, specPath.Child("backoffLimitPerIndex"))...)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(j.Spec.ManagedBy, o.Spec.ManagedBy, specPath.Child("managedBy"))...)
	return append(errs, apimachineryvalidation.ValidateImmutableField(j.Spec.SuccessPolicy, o.Spec.SuccessPolicy, specPath.Child("successPolicy"))...)
}

// ValidateStatusUpdate checks a write to jobs/status: counters not
// negative, ready pods not more than active ones, and no terminal
// condition taken back.
func (jobStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	j, o := obj.(*batchv1.Job), old.(*batchv1.Job)
	errs := ValidateMetaUpdate(&j.ObjectMeta, &o.ObjectMeta)
	st, path := j.Status, field.NewPath("status")
	errs = append(errs, nonNegative(int64(st.Active), path.Child("active"))...)
	errs = append(errs, nonNegative(int64(st.Succeeded), path.Child("succeeded"))...)
	errs = append(errs, nonNegative(int64(st.Failed), path.Child("failed"))...)
	if st.Ready != nil {
		errs = append(errs, nonNegative(int64(*st.Ready), path.Child("ready"))...)
	}
	if st.Terminating != nil {
		errs = append(errs, nonNegative(int64(*st.Terminating), path.Child("terminating"))...)
	}
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget} {
		if jobConditionTrue(o.Status.Conditions, t) && !jobConditionTrue(st.Conditions, t) {
			errs = append(errs, field.Invalid(path.Child("conditions"), field.OmitValueType{}, fmt.Sprintf("cannot disable the terminal %s=True condition", t)))
		}
	}
	return errs
}

// GenerationChanged is true when the spec changed.
func (jobStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*batchv1.Job).Spec, old.(*batchv1.Job).Spec)
}

// FieldSet offers metadata and status.successful, as kube-apiserver.
func (jobStrategy) FieldSet(obj runtime.Object) fields.Set {
	j := obj.(*batchv1.Job)
	return mergeFields(metaFields(j, true), fields.Set{"status.successful": strconv.Itoa(int(j.Status.Succeeded))})
}

func jobConditionTrue(conds []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	for _, c := range conds {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// validateGeneratedSelector: with a generated selector, the template
// carries the four labels with the Job's uid and name, and the selector
// selects them.
func validateGeneratedSelector(j *batchv1.Job) field.ErrorList {
	if (j.Spec.ManualSelector != nil && *j.Spec.ManualSelector) || j.Spec.Selector == nil {
		return nil
	}
	var errs field.ErrorList
	if j.UID == "" {
		errs = append(errs, field.Required(metadataPath.Child("uid"), ""))
	}
	tPath := specPath.Child("template", "metadata")
	want := map[string]string{
		legacyControllerUIDLabel: string(j.UID), legacyJobNameLabel: j.Name,
		batchv1.ControllerUidLabel: string(j.UID), batchv1.JobNameLabel: j.Name,
	}
	for _, name := range []string{legacyControllerUIDLabel, legacyJobNameLabel, batchv1.ControllerUidLabel, batchv1.JobNameLabel} {
		errs = append(errs, validateHasLabel(j.Spec.Template.Labels, tPath, name, want[name])...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(j.Spec.Selector); err == nil && !sel.Matches(labels.Set(want)) {
		errs = append(errs, field.Invalid(specPath.Child("selector"), j.Spec.Selector, "`selector` not auto-generated"))
	}
	return errs
}

// validateHasLabel is kube's ValidateHasLabel.
func validateHasLabel(have map[string]string, fldPath *field.Path, key, want string) field.ErrorList {
	got, ok := have[key]
	if !ok {
		return field.ErrorList{field.Required(fldPath.Child("labels").Key(key), "must be '"+want+"'")}
	}
	if got != want {
		return field.ErrorList{field.Invalid(fldPath.Child("labels").Key(key), got, "must be '"+want+"'")}
	}
	return nil
}

// validateJobSpecWithSelector is kube's ValidateJobSpec: the spec, a
// required valid selector, and a template its selector matches.
func validateJobSpecWithSelector(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	errs := validateJobSpec(spec, fldPath)
	selPath := fldPath.Child("selector")
	if spec.Selector == nil {
		errs = append(errs, field.Required(selPath, ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, selPath)...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !sel.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(fldPath.Child("template", "metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

// validateIndexedJobName: an Indexed Job's last pod hostname must be a
// DNS label.
func validateIndexedJobName(j *batchv1.Job) field.ErrorList {
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || *s.Completions <= 0 {
		return nil
	}
	host := fmt.Sprintf("%s-%d", j.Name, *s.Completions-1)
	if len(apimachineryvalidation.NameIsDNSLabel(host, false)) > 0 {
		return field.ErrorList{field.Invalid(metadataPath.Child("name"), j.Name, "will not able to create pod with invalid DNS label: "+host)}
	}
	return nil
}
