package registry

// CronJobs: batch/v1's defaults (concurrencyPolicy Allow, not suspended,
// 3 successful and 1 failed Job kept), the schedule parsed as kube parses
// it (robfig/cron's standard five fields), the time zone, the job
// template's rules, and the status subresource.

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // time zones resolve on machines without /usr/share/zoneinfo, as in kube

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// cronJobs is batch/v1 cronjobs.
func cronJobs() *Resource {
	s := cronJobStrategy{}
	return &Resource{
		Group: "batch", Version: "v1", Resource: "cronjobs", Kind: "CronJob", ListKind: "CronJobList", Singular: "cronjob",
		ShortNames: []string{"cj"}, Categories: []string{"all"}, Namespaced: true,
		New:     func() runtime.Object { return &batchv1.CronJob{} },
		NewList: func() runtime.Object { return &batchv1.CronJobList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Generation: s.GenerationChanged,
		Table:      printers.CronJobs,
	}
}

type cronJobStrategy struct{}

// cronJobNameMax leaves room for the controller's "-<minutes>" suffix in
// a 63-character Job name.
const cronJobNameMax = 52

var concurrencyPolicies = []string{string(batchv1.AllowConcurrent), string(batchv1.ForbidConcurrent), string(batchv1.ReplaceConcurrent)}

// defaultCronJob applies batch/v1's SetDefaults_CronJob and the pod
// template's defaults.
func defaultCronJob(cj *batchv1.CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptrTo(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptrTo(int32(3))
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptrTo(int32(1))
	}
	defaultPodTemplate(&s.JobTemplate.Spec.Template)
}

// PrepareForCreate clears status and applies defaults.
func (cronJobStrategy) PrepareForCreate(obj runtime.Object) {
	cj := obj.(*batchv1.CronJob)
	cj.Status = batchv1.CronJobStatus{}
	defaultCronJob(cj)
}

// PrepareForUpdate keeps the stored status.
func (cronJobStrategy) PrepareForUpdate(obj, old runtime.Object) {
	cj := obj.(*batchv1.CronJob)
	cj.Status = old.(*batchv1.CronJob).Status
	defaultCronJob(cj)
}

// PrepareForStatusUpdate keeps the stored spec.
func (cronJobStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*batchv1.CronJob).Spec = old.(*batchv1.CronJob).Spec
}

// Validate checks a new CronJob.
func (cronJobStrategy) Validate(obj runtime.Object) field.ErrorList {
	cj := obj.(*batchv1.CronJob)
	errs := ValidateMetaCreate(&cj.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	errs = append(errs, validateCronJobSpec(&cj.Spec, nil)...)
	if len(cj.Name) > cronJobNameMax {
		errs = append(errs, field.Invalid(metadataPath.Child("name"), cj.Name, fmt.Sprintf("must be no more than %d characters", cronJobNameMax)))
	}
	return errs
}

// ValidateUpdate checks an update; the name's length is not checked again,
// so older long-named CronJobs stay editable.
func (cronJobStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	cj, o := obj.(*batchv1.CronJob), old.(*batchv1.CronJob)
	errs := ValidateMetaUpdate(&cj.ObjectMeta, &o.ObjectMeta)
	return append(errs, validateCronJobSpec(&cj.Spec, &o.Spec)...)
}

// ValidateStatusUpdate checks a write to cronjobs/status (metadata only,
// as kube).
func (cronJobStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	return ValidateMetaUpdate(&obj.(*batchv1.CronJob).ObjectMeta, &old.(*batchv1.CronJob).ObjectMeta)
}

// GenerationChanged is true when the spec changed.
func (cronJobStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*batchv1.CronJob).Spec, old.(*batchv1.CronJob).Spec)
}

// validateCronJobSpec is kube's validateCronJobSpec; old is nil on create.
func validateCronJobSpec(spec, old *batchv1.CronJobSpec) field.ErrorList {
	var errs field.ErrorList
	schedPath := specPath.Child("schedule")
	if spec.Schedule == "" {
		errs = append(errs, field.Required(schedPath, ""))
	} else {
		allowTZ := old != nil && strings.Contains(old.Schedule, "TZ")
		errs = append(errs, validateSchedule(spec.Schedule, allowTZ, spec.TimeZone, schedPath)...)
	}
	if d := spec.StartingDeadlineSeconds; d != nil {
		errs = append(errs, nonNegative(*d, specPath.Child("startingDeadlineSeconds"))...)
	}
	if old == nil || !equalStrings(old.TimeZone, spec.TimeZone) {
		errs = append(errs, validateTimeZone(spec.TimeZone, specPath.Child("timeZone"))...)
	}
	cpPath := specPath.Child("concurrencyPolicy")
	switch p := string(spec.ConcurrencyPolicy); {
	case p == "":
		errs = append(errs, field.Required(cpPath, ""))
	case !contains(concurrencyPolicies, p):
		errs = append(errs, field.NotSupported(cpPath, spec.ConcurrencyPolicy, concurrencyPolicies))
	}
	errs = append(errs, validateJobTemplate(&spec.JobTemplate, specPath.Child("jobTemplate"))...)
	if l := spec.SuccessfulJobsHistoryLimit; l != nil {
		errs = append(errs, nonNegative(int64(*l), specPath.Child("successfulJobsHistoryLimit"))...)
	}
	if l := spec.FailedJobsHistoryLimit; l != nil {
		errs = append(errs, nonNegative(int64(*l), specPath.Child("failedJobsHistoryLimit"))...)
	}
	return errs
}

// validateSchedule parses the schedule as the controller will, and keeps
// time zones out of it (the timeZone field says that).
func validateSchedule(schedule string, allowTZ bool, timeZone *string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if _, err := cron.ParseStandard(schedule); err != nil {
		errs = append(errs, field.Invalid(fldPath, schedule, err.Error()))
	}
	switch hasTZ := strings.Contains(schedule, "TZ"); {
	case allowTZ && hasTZ && timeZone != nil:
		errs = append(errs, field.Invalid(fldPath, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZ && hasTZ:
		errs = append(errs, field.Invalid(fldPath, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return errs
}

// timeZonePart is one component of an IANA zone name, as kube allows it.
var timeZonePart = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// validateTimeZone: nil, or an IANA zone name Go can load (not Local).
func validateTimeZone(tz *string, fldPath *field.Path) field.ErrorList {
	if tz == nil {
		return nil
	}
	if *tz == "" {
		return field.ErrorList{field.Invalid(fldPath, tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !timeZonePart.MatchString(part) {
			return field.ErrorList{field.Invalid(fldPath, tz, "unknown time zone "+*tz)}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(*tz, "Local") {
		errs = append(errs, field.Invalid(fldPath, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, field.Invalid(fldPath, tz, err.Error()))
	}
	return errs
}

// validateJobTemplate is kube's ValidateJobTemplateSpec: the Job spec's
// rules; the selector is always generated, so none may be given.
func validateJobTemplate(t *batchv1.JobTemplateSpec, fldPath *field.Path) field.ErrorList {
	specP := fldPath.Child("spec")
	errs := validateJobSpec(&t.Spec, specP)
	if t.Spec.Selector != nil {
		errs = append(errs, field.Invalid(specP.Child("selector"), t.Spec.Selector, "`selector` will be auto-generated"))
	}
	if t.Spec.ManualSelector != nil && *t.Spec.ManualSelector {
		errs = append(errs, field.NotSupported(specP.Child("manualSelector"), t.Spec.ManualSelector, []string{"nil", "false"}))
	}
	return errs
}

func equalStrings(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
