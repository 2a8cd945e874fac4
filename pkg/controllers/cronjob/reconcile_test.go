package cronjob

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// The reference's CronJob was created at 08:45:14 and fired at 08:46:00.
var created = time.Date(2026, 12, 1, 8, 45, 14, 0, time.UTC)

type fixture struct {
	client *fake.Clientset
	ctrl   *Controller
	clock  *clocktesting.FakeClock
	events chan string
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	// The fake tracker sets no uid; the server does.
	client.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		j := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		j.UID = types.UID("uid-" + j.Name)
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	clk := clocktesting.NewFakeClock(created)
	ctrl, err := New(Config{Client: client, Informers: factory, Recorder: rec, Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return &fixture{client: client, ctrl: ctrl, clock: clk, events: rec.Events}
}

// newCronJob is cj.yaml of the reference, as stored (defaulted).
func newCronJob(policy batchv1.ConcurrencyPolicy) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "tick", Namespace: "default", UID: "ede5a940", CreationTimestamp: metav1.NewTime(created)},
		Spec: batchv1.CronJobSpec{
			Schedule: "* * * * *", ConcurrencyPolicy: policy, Suspend: new(false),
			SuccessfulJobsHistoryLimit: new(int32(3)), FailedJobsHistoryLimit: new(int32(1)),
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers:    []corev1.Container{{Name: "tick", Image: "busybox", Command: []string{"date"}}},
			}}}},
		},
	}
}

func (f *fixture) reconcile(t *testing.T) {
	t.Helper()
	if err := f.ctrl.Reconcile(context.Background(), "default/tick"); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("never: %s", what)
	}
}

// jobNames lists the Jobs in the cache, sorted.
func (f *fixture) jobNames() []string {
	jobs, _ := f.ctrl.jobs.Jobs("default").List(labels.Everything())
	var out []string
	for _, j := range jobs {
		out = append(out, j.Name)
	}
	sort.Strings(out)
	return out
}

func (f *fixture) waitJobs(t *testing.T, want ...string) {
	t.Helper()
	f.eventually(t, "jobs "+strings.Join(want, ","), func() bool { return strings.Join(f.jobNames(), ",") == strings.Join(want, ",") })
}

func (f *fixture) cronJob(t *testing.T) *batchv1.CronJob {
	t.Helper()
	cj, err := f.client.BatchV1().CronJobs("default").Get(context.Background(), "tick", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cj
}

// waitActive waits until the cached CronJob lists n active Jobs.
func (f *fixture) waitActive(t *testing.T, n int) {
	t.Helper()
	f.eventually(t, "active count", func() bool {
		cj, err := f.ctrl.cronJobs.CronJobs("default").Get("tick")
		return err == nil && len(cj.Status.Active) == n
	})
}

func (f *fixture) drainEvents() []string {
	var out []string
	for len(f.events) > 0 {
		out = append(out, <-f.events)
	}
	return out
}

func TestCronJobFiresOnScheduleAsKube(t *testing.T) {
	f := newFixture(t, newCronJob(batchv1.AllowConcurrent))
	f.reconcile(t)
	if n := len(f.jobNames()); n != 0 {
		t.Fatalf("%d jobs before the first scheduled time", n)
	}
	f.clock.SetTime(time.Date(2026, 12, 1, 8, 46, 0, 100e6, time.UTC))
	f.reconcile(t)
	f.waitJobs(t, "tick-29935246")
	j, _ := f.ctrl.jobs.Jobs("default").Get("tick-29935246")
	if got := j.Annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"]; got != "2026-12-01T08:46:00Z" {
		t.Errorf("scheduled-timestamp annotation %q", got)
	}
	if !owner.IsControlledBy(j, "ede5a940") || metav1.GetControllerOf(j).Kind != "CronJob" {
		t.Errorf("owner references %+v", j.OwnerReferences)
	}
	if j.Spec.Template.Spec.Containers[0].Image != "busybox" || len(j.Labels) != 0 {
		t.Errorf("job spec/labels not from the template: labels %v spec %+v", j.Labels, j.Spec)
	}
	cj := f.cronJob(t)
	if len(cj.Status.Active) != 1 || cj.Status.Active[0].Name != "tick-29935246" || cj.Status.Active[0].Kind != "Job" || cj.Status.Active[0].APIVersion != "batch/v1" ||
		!cj.Status.LastScheduleTime.Time.Equal(time.Date(2026, 12, 1, 8, 46, 0, 0, time.UTC)) {
		t.Fatalf("status %+v", cj.Status)
	}
	if ev := f.drainEvents(); len(ev) != 1 || ev[0] != "Normal SuccessfulCreate Created job tick-29935246" {
		t.Errorf("events %v", ev)
	}
	// Level-triggered: the same minute starts nothing more.
	f.waitActive(t, 1)
	f.reconcile(t)
	f.waitJobs(t, "tick-29935246")
	// Allow: the next minute starts another while the first runs.
	f.clock.Step(time.Minute)
	f.reconcile(t)
	f.waitJobs(t, "tick-29935246", "tick-29935247")
}

func TestCronJobForbidSkipsWhileActive(t *testing.T) {
	f := newFixture(t, newCronJob(batchv1.ForbidConcurrent))
	f.clock.SetTime(time.Date(2026, 12, 1, 8, 46, 0, 100e6, time.UTC))
	f.reconcile(t)
	f.waitJobs(t, "tick-29935246")
	f.waitActive(t, 1)
	f.drainEvents()
	f.clock.Step(time.Minute)
	f.reconcile(t)
	f.waitJobs(t, "tick-29935246")
	if ev := f.drainEvents(); len(ev) != 1 || !strings.Contains(ev[0], "JobAlreadyActive") {
		t.Errorf("events %v", ev)
	}
}

func TestCronJobReplaceDeletesActive(t *testing.T) {
	f := newFixture(t, newCronJob(batchv1.ReplaceConcurrent))
	f.clock.SetTime(time.Date(2026, 12, 1, 8, 46, 0, 100e6, time.UTC))
	f.reconcile(t)
	f.waitJobs(t, "tick-29935246")
	f.waitActive(t, 1)
	f.clock.Step(time.Minute)
	f.reconcile(t)
	f.waitJobs(t, "tick-29935247")
	if cj := f.cronJob(t); len(cj.Status.Active) != 1 || cj.Status.Active[0].Name != "tick-29935247" {
		t.Errorf("active %+v", cj.Status.Active)
	}
}

func TestCronJobSuspendedStartsNothing(t *testing.T) {
	cj := newCronJob(batchv1.AllowConcurrent)
	cj.Spec.Suspend = new(true)
	f := newFixture(t, cj)
	f.clock.Step(10 * time.Minute)
	f.reconcile(t)
	if n := len(clienttest.Writes(f.client)); n != 0 {
		t.Errorf("a suspended CronJob wrote %d times", n)
	}
}

func TestCronJobStartingDeadlineSkipsMissedRun(t *testing.T) {
	cj := newCronJob(batchv1.AllowConcurrent)
	cj.Spec.StartingDeadlineSeconds = new(int64(10))
	f := newFixture(t, cj)
	f.clock.SetTime(time.Date(2026, 12, 1, 8, 46, 30, 0, time.UTC))
	f.reconcile(t)
	if n := len(f.jobNames()); n != 0 {
		t.Errorf("%d jobs for a run 30s late with a 10s starting deadline", n)
	}
}

func TestCronJobTimeZoneAnnotation(t *testing.T) {
	cj := newCronJob(batchv1.AllowConcurrent)
	cj.Spec.Schedule, cj.Spec.TimeZone = "0 10 * * *", new("Europe/Paris")
	f := newFixture(t, cj)
	f.clock.SetTime(time.Date(2026, 12, 1, 9, 0, 1, 0, time.UTC)) // 10:00 in Paris
	f.reconcile(t)
	name := jobName(cj, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	f.waitJobs(t, name)
	j, _ := f.ctrl.jobs.Jobs("default").Get(name)
	if got := j.Annotations[ScheduledTimestampAnnotation]; got != "2026-12-01T10:00:00+01:00" {
		t.Errorf("annotation %q", got)
	}
}

// finishedJob is a Job of the CronJob that ended as cond at minute m.
func finishedJob(m int, cond batchv1.JobConditionType) *batchv1.Job {
	yes := true
	at := metav1.NewTime(created.Add(time.Duration(m) * time.Minute))
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: jobName(&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "tick"}}, at.Time), Namespace: "default",
			UID:             types.UID("job-" + string(rune('a'+m))),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "tick", UID: "ede5a940", Controller: &yes}}},
		Status: batchv1.JobStatus{StartTime: &at, CompletionTime: &at, Conditions: []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}},
	}
}

func TestCronJobHistoryLimitsAndLastSuccess(t *testing.T) {
	cj := newCronJob(batchv1.AllowConcurrent)
	cj.Spec.Suspend = new(true)
	objs := []runtime.Object{cj}
	for m := 1; m <= 5; m++ {
		objs = append(objs, finishedJob(m, batchv1.JobComplete))
	}
	objs = append(objs, finishedJob(6, batchv1.JobFailed), finishedJob(7, batchv1.JobFailed))
	f := newFixture(t, objs...)
	f.reconcile(t)
	want := []string{finishedJob(3, "").Name, finishedJob(4, "").Name, finishedJob(5, "").Name, finishedJob(7, "").Name}
	sort.Strings(want)
	f.waitJobs(t, want...)
	if got := f.cronJob(t).Status.LastSuccessfulTime; got == nil || !got.Time.Equal(created.Add(5*time.Minute)) {
		t.Errorf("lastSuccessfulTime %v", got)
	}
}

func TestMostRecentRun(t *testing.T) {
	cj := newCronJob(batchv1.AllowConcurrent)
	sched, err := parseSchedule(cj)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		now    time.Time
		want   string
		missed int
	}{
		{created.Add(30 * time.Second), "none", 0},
		{time.Date(2026, 12, 1, 8, 46, 0, 0, time.UTC), "08:46", 1},
		{time.Date(2026, 12, 1, 8, 49, 30, 0, time.UTC), "08:49", 4},
	} {
		run, missed, err := mostRecentRun(cj, sched, c.now)
		got := "none"
		if run != nil {
			got = run.UTC().Format("15:04")
		}
		if err != nil || got != c.want || missed != c.missed {
			t.Errorf("at %s: run %s missed %d (%v), want %s and %d", c.now.Format("15:04:05"), got, missed, err, c.want, c.missed)
		}
	}
}
