package registry

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newCronJob is cj.yaml of the reference.
func newCronJob(name, schedule string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: objMeta(name, "default"),
		Spec: batchv1.CronJobSpec{
			Schedule: schedule,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers:    []corev1.Container{{Name: "tick", Image: "busybox", Command: []string{"date"}}},
			}}}},
		},
	}
}

func TestCronJobDefaults(t *testing.T) {
	cj := newCronJob("tick", "* * * * *")
	cj.Status.Active = []corev1.ObjectReference{{Name: "x"}}
	cronJobStrategy{}.PrepareForCreate(cj)
	s := cj.Spec
	if s.ConcurrencyPolicy != batchv1.AllowConcurrent || *s.Suspend || *s.SuccessfulJobsHistoryLimit != 3 || *s.FailedJobsHistoryLimit != 1 || cj.Status.Active != nil {
		t.Fatalf("defaults %+v status %+v", s, cj.Status)
	}
	// The job template is not defaulted as a Job: that happens when the
	// controller creates one.
	if s.JobTemplate.Spec.Completions != nil || s.JobTemplate.Spec.BackoffLimit != nil {
		t.Errorf("job template got Job defaults: %+v", s.JobTemplate.Spec)
	}
	if s.JobTemplate.Spec.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Error("pod template not defaulted")
	}
	wantErrors(t, cronJobStrategy{}.Validate(cj))
}

func TestCronJobValidationMessages(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(cj *batchv1.CronJob)
		want   []string
	}{
		{"minute out of range", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "61 * * * *" }, []string{
			`spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`,
		}},
		{"three fields", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "not a schedule" }, []string{
			`spec.schedule: Invalid value: "not a schedule": expected exactly 5 fields, found 3: [not a schedule]`,
		}},
		{"four fields", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "* * * *" }, []string{
			`spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]`,
		}},
		{"TZ in schedule", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "TZ=UTC * * * * *" }, []string{
			`spec.schedule: Invalid value: "TZ=UTC * * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`,
		}},
		{"unknown zone", func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr("Mars/Olympus") }, []string{
			`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`,
		}},
		{"known zone", func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr("Europe/Paris") }, nil},
		{"concurrency policy", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "Sometimes" }, []string{
			`spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`,
		}},
		{"template restartPolicy and selector", func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
			cj.Spec.JobTemplate.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
		}, []string{
			`spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`,
			"spec.jobTemplate.spec.selector: Invalid value: {\"matchLabels\":{\"a\":\"b\"}}: `selector` will be auto-generated",
		}},
		{"long name", func(cj *batchv1.CronJob) { cj.Name = "a23456789012345678901234567890123456789012345678901234" }, []string{
			`metadata.name: Invalid value: "a23456789012345678901234567890123456789012345678901234": must be no more than 52 characters`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cj := newCronJob("tick", "* * * * *")
			c.mutate(cj)
			cronJobStrategy{}.PrepareForCreate(cj)
			wantErrors(t, cronJobStrategy{}.Validate(cj), c.want...)
		})
	}
}

func TestCronJobUpdateChecksZoneOnlyWhenChanged(t *testing.T) {
	old := newCronJob("tick", "* * * * *")
	cronJobStrategy{}.PrepareForCreate(old)
	old.ObjectMeta = storedMeta("tick", "default")
	cj := old.DeepCopy()
	cj.Spec.Suspend = ptr(true)
	cronJobStrategy{}.PrepareForUpdate(cj, old)
	wantErrors(t, cronJobStrategy{}.ValidateUpdate(cj, old))
	if !(cronJobStrategy{}).GenerationChanged(cj, old) {
		t.Error("suspend does not move generation")
	}
	cj.Spec.TimeZone = ptr("Mars/Olympus")
	wantErrors(t, cronJobStrategy{}.ValidateUpdate(cj, old), `spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`)
}
