package printers

import (
	"reflect"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const piUID = "5249abb0-121d-4b71-a0e1-b02b05969740"

func piJob() *batchv1.Job {
	start := metav1.NewTime(now.Add(-2 * time.Second))
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", CreationTimestamp: created},
		Spec: batchv1.JobSpec{
			Completions: int32p(1), Parallelism: int32p(1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": piUID}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pi", Image: "perl"}}}},
		},
		Status: batchv1.JobStatus{Active: 1, StartTime: &start},
	}
}

// The columns and cells of reference section 8.
func TestJobTable(t *testing.T) {
	table, err := Jobs(piJob(), now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name/string/0/name", "Status/string/0", "Completions/string/0", "Duration/string/0", "Age/string/0",
		"Containers/string/1", "Images/string/1", "Selector/string/1"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
	if d := table.ColumnDefinitions[2].Description; !strings.HasPrefix(d, "The number of pods which reached phase Succeeded. The value") {
		t.Errorf("Completions description %q", d)
	}
	if got, want := cellsJSON(t, table.Rows[0]), `["pi","Running","0/1","2s","2s","pi","perl","batch.kubernetes.io/controller-uid=`+piUID+`"]`; got != want {
		t.Errorf("cells %s, want %s", got, want)
	}
}

func TestJobStatusAndDurationCells(t *testing.T) {
	done := piJob()
	completion := metav1.NewTime(done.Status.StartTime.Add(3 * time.Second))
	done.Status.CompletionTime, done.Status.Succeeded, done.Status.Active = &completion, 1, 0
	done.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue},
	}
	failing := piJob()
	failing.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue}}
	open := piJob()
	open.Spec.Completions, open.Spec.Parallelism, open.Status.StartTime = nil, int32p(3), nil
	for _, c := range []struct {
		job                  *batchv1.Job
		status, done, length string
	}{
		{done, "Complete", "1/1", "3s"},
		{failing, "FailureTarget", "0/1", "2s"},
		{open, "Running", "0/1 of 3", ""},
	} {
		cells, _ := jobCells(c.job, now)
		if cells[1] != c.status || cells[2] != c.done || cells[3] != c.length {
			t.Errorf("cells %v, want status %s completions %s duration %q", cells, c.status, c.done, c.length)
		}
	}
}

// The columns and cells of reference section 9.
func TestCronJobTable(t *testing.T) {
	no := false
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "tick", CreationTimestamp: metav1.NewTime(now)},
		Spec: batchv1.CronJobSpec{Schedule: "* * * * *", Suspend: &no,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "tick", Image: "busybox"}}}}}}},
	}
	table, err := CronJobs(cj, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name/string/0/name", "Schedule/string/0", "Timezone/string/0", "Suspend/boolean/0", "Active/integer/0",
		"Last Schedule/string/0", "Age/string/0", "Containers/string/1", "Images/string/1", "Selector/string/1"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, want) {
		t.Errorf("columns %v, want %v", got, want)
	}
	if got, want := cellsJSON(t, table.Rows[0]), `["tick","* * * * *","\u003cnone\u003e","False",0,"\u003cnone\u003e","0s","tick","busybox","\u003cnone\u003e"]`; got != want {
		t.Errorf("cells %s, want %s", got, want)
	}
	last := metav1.NewTime(now.Add(-35 * time.Second))
	cj.Status = batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Name: "tick-1"}}, LastScheduleTime: &last}
	cells, _ := cronJobCells(cj, now)
	if cells[4] != int64(1) || cells[5] != "35s" {
		t.Errorf("active %v last schedule %v", cells[4], cells[5])
	}
}
