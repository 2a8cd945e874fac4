package printers

// Jobs and CronJobs, with kube-apiserver's columns (printJob and
// printCronJob).

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// The batch/v1 Tables (see the var block in printers.go).
var (
	Jobs     = printer{columns: jobColumns, cells: jobCells}.table
	CronJobs = printer{columns: cronJobColumns, cells: cronJobCells}.table
)

var jobColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Status", "string", "Status of the job.", 0),
	col("Completions", "string", batchv1.JobStatus{}.SwaggerDoc()["succeeded"], 0),
	col("Duration", "string", "Time required to complete the job.", 0),
	ageCol(),
	col("Containers", "string", containersDoc, 1),
	col("Images", "string", imagesDoc, 1),
	col("Selector", "string", batchv1.JobSpec{}.SwaggerDoc()["selector"], 1),
}

var cronJobColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Schedule", "string", batchv1.CronJobSpec{}.SwaggerDoc()["schedule"], 0),
	col("Timezone", "string", batchv1.CronJobSpec{}.SwaggerDoc()["timeZone"], 0),
	col("Suspend", "boolean", batchv1.CronJobSpec{}.SwaggerDoc()["suspend"], 0),
	col("Active", "integer", batchv1.CronJobStatus{}.SwaggerDoc()["active"], 0),
	col("Last Schedule", "string", batchv1.CronJobStatus{}.SwaggerDoc()["lastScheduleTime"], 0),
	ageCol(),
	col("Containers", "string", containersDoc, 1),
	col("Images", "string", imagesDoc, 1),
	col("Selector", "string", batchv1.JobSpec{}.SwaggerDoc()["selector"], 1),
}

// jobCells: STATUS is the first of Complete, Failed, Terminating,
// Suspended, FailureTarget, SuccessCriteriaMet that holds, else Running;
// COMPLETIONS is succeeded/completions; DURATION runs until completionTime.
func jobCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	j := obj.(*batchv1.Job)
	names, images := containerCells(j.Spec.Template.Spec.Containers)
	return []interface{}{
		j.Name, jobStatus(j), jobCompletions(j), jobDuration(j, now), age(j.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(j.Spec.Selector),
	}, nil
}

func jobStatus(j *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range j.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

func jobCompletions(j *batchv1.Job) string {
	if j.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	}
	if p := j.Spec.Parallelism; p != nil && *p > 1 {
		return fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *p)
	}
	return fmt.Sprintf("%d/1", j.Status.Succeeded)
}

func jobDuration(j *batchv1.Job, now time.Time) string {
	switch st := j.Status; {
	case st.StartTime == nil:
		return ""
	case st.CompletionTime == nil:
		return duration.HumanDuration(now.Sub(st.StartTime.Time))
	default:
		return duration.HumanDuration(st.CompletionTime.Sub(st.StartTime.Time))
	}
}

// cronJobCells: SUSPEND is a "True"/"False" string in a boolean column and
// ACTIVE an integer, as kube-apiserver sends them.
func cronJobCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	cj := obj.(*batchv1.CronJob)
	tz := "<none>"
	if cj.Spec.TimeZone != nil {
		tz = *cj.Spec.TimeZone
	}
	suspend := "<unset>"
	if s := cj.Spec.Suspend; s != nil {
		suspend = map[bool]string{true: "True", false: "False"}[*s]
	}
	last := "<none>"
	if t := cj.Status.LastScheduleTime; t != nil {
		last = age(*t, now)
	}
	names, images := containerCells(cj.Spec.JobTemplate.Spec.Template.Spec.Containers)
	return []interface{}{
		cj.Name, cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last, age(cj.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(cj.Spec.JobTemplate.Spec.Selector),
	}, nil
}
