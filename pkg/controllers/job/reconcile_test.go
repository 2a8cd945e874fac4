package job

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
)

const jobUID = "5249abb0-121d-4b71-a0e1-b02b05969740"

var t0 = time.Date(2026, 12, 1, 8, 45, 40, 0, time.UTC)

// fixture is a Controller over a fake clientset whose informers run, so
// Reconcile sees its own writes come back as it would against a server.
type fixture struct {
	client *fake.Clientset
	ctrl   *Controller
	clock  *clocktesting.FakeClock
	events chan string
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	var n atomic.Int64
	// The fake tracker sets no generated name, uid or creation time; the
	// server does.
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, n.Add(1))
			pod.UID = types.UID("uid-" + pod.Name)
			pod.CreationTimestamp = metav1.NewTime(t0.Add(time.Duration(n.Load()) * time.Millisecond))
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	clk := clocktesting.NewFakeClock(t0)
	ctrl, err := New(Config{Client: client, Informers: factory, Recorder: rec, Logger: slog.New(slog.DiscardHandler), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return &fixture{client: client, ctrl: ctrl, clock: clk, events: rec.Events}
}

// newJob is a Job as the server stores it: defaulted, with the generated
// selector and labels.
func newJob(completions, parallelism, backoffLimit int32) *batchv1.Job {
	labels := map[string]string{
		"batch.kubernetes.io/controller-uid": jobUID, "batch.kubernetes.io/job-name": "pi",
		"controller-uid": jobUID, "job-name": "pi",
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: jobUID, Labels: labels},
		Spec: batchv1.JobSpec{
			Completions: &completions, Parallelism: &parallelism, BackoffLimit: &backoffLimit,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": jobUID}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "pi", Image: "perl"}}},
			},
		},
	}
}

// reconcile runs Reconcile once the informer handlers have seen the
// pods it created or deleted before (the cache may hold a pod before its
// handler ran).
func (f *fixture) reconcile(t *testing.T) {
	t.Helper()
	f.eventually(t, "expectations met", func() bool { return f.ctrl.expect.Satisfied("default/pi") })
	if err := f.ctrl.Reconcile(context.Background(), "default/pi"); err != nil {
		t.Fatal(err)
	}
}

// eventually waits until the caches satisfy cond.
func (f *fixture) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("never: %s", what)
	}
}

func (f *fixture) job(t *testing.T) *batchv1.Job {
	t.Helper()
	j, err := f.client.BatchV1().Jobs("default").Get(context.Background(), "pi", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// cachedPods lists the Job's pods in the cache, oldest first.
func (f *fixture) cachedPods() []*corev1.Pod {
	pods, _ := f.ctrl.pods.Pods("default").List(labels.Everything())
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	return pods
}

// waitPods waits until the cache holds n pods that match.
func (f *fixture) waitPods(t *testing.T, n int, match func(*corev1.Pod) bool) []*corev1.Pod {
	t.Helper()
	var got []*corev1.Pod
	f.eventually(t, fmt.Sprintf("%d matching pods", n), func() bool {
		got = filter(f.cachedPods(), match)
		return len(got) == n
	})
	return got
}

// waitJob waits until the cached Job satisfies cond.
func (f *fixture) waitJob(t *testing.T, cond func(*batchv1.Job) bool) {
	t.Helper()
	f.eventually(t, "job state", func() bool {
		j, err := f.ctrl.jobs.Jobs("default").Get("pi")
		return err == nil && cond(j)
	})
}

// finish ends pod with exit code as the kubelet would.
func (f *fixture) finish(t *testing.T, pod *corev1.Pod, code int32) {
	t.Helper()
	p := pod.DeepCopy()
	p.Status.Phase = corev1.PodSucceeded
	reason := "Completed"
	if code != 0 {
		p.Status.Phase, reason = corev1.PodFailed, "Error"
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "pi", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: code, Reason: reason, FinishedAt: metav1.NewTime(f.clock.Now()),
	}}}}
	if _, err := f.client.CoreV1().Pods("default").UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func all(*corev1.Pod) bool { return true }

func phase(ph corev1.PodPhase) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool { return p.Status.Phase == ph }
}

func conditionTypes(j *batchv1.Job) string {
	var out []string
	for _, c := range j.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return strings.Join(out, ",")
}

func TestJobRunsToCompletionsWithParallelism(t *testing.T) {
	f := newFixture(t, newJob(3, 2, 6))
	f.reconcile(t)
	pods := f.waitPods(t, 2, all)
	p := pods[0]
	if p.GenerateName != "pi-" || len(p.Finalizers) != 1 || p.Finalizers[0] != TrackingFinalizer ||
		p.Labels["batch.kubernetes.io/job-name"] != "pi" || p.Labels["controller-uid"] != jobUID {
		t.Errorf("pod metadata: %+v", p.ObjectMeta)
	}
	if ref := metav1.GetControllerOf(p); ref == nil || ref.Kind != "Job" || ref.APIVersion != "batch/v1" || ref.UID != jobUID || !*ref.BlockOwnerDeletion {
		t.Errorf("owner reference %+v", ref)
	}
	j := f.job(t)
	if j.Status.Active != 2 || *j.Status.Ready != 0 || *j.Status.Terminating != 0 || j.Status.UncountedTerminatedPods == nil || !j.Status.StartTime.Time.Equal(t0) {
		t.Fatalf("status after start: %+v", j.Status)
	}
	if ev := <-f.events; ev != "Normal SuccessfulCreate Created pod: pi-00001" {
		t.Errorf("event %q", ev)
	}

	f.clock.Step(3 * time.Second)
	for _, p := range pods {
		f.finish(t, p, 0)
	}
	f.waitPods(t, 2, phase(corev1.PodSucceeded))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 2 })
	f.reconcile(t)
	j = f.job(t)
	if j.Status.Succeeded != 2 || j.Status.Active != 1 || len(j.Status.UncountedTerminatedPods.Succeeded) != 0 {
		t.Fatalf("status after two successes: %+v", j.Status)
	}
	done := f.waitPods(t, 2, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded && len(p.Finalizers) == 0 })
	if len(done) != 2 {
		t.Fatal("finalizers not removed from counted pods")
	}
	third := f.waitPods(t, 1, phase(""))[0]

	f.clock.Step(time.Second)
	f.finish(t, third, 0)
	f.waitPods(t, 3, phase(corev1.PodSucceeded))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Succeeded == 2 && j.Status.Active == 1 })
	f.reconcile(t)
	j = f.job(t)
	if got := conditionTypes(j); got != "SuccessCriteriaMet=True/CompletionsReached,Complete=True/CompletionsReached" {
		t.Fatalf("conditions %s, status %+v, pods %v", got, j.Status, f.cachedPods())
	}
	c := j.Status.Conditions[1]
	if c.Message != "Reached expected number of succeeded pods" || j.Status.Succeeded != 3 || j.Status.Active != 0 ||
		j.Status.CompletionTime == nil || !j.Status.CompletionTime.Equal(&c.LastTransitionTime) {
		t.Errorf("final status %+v", j.Status)
	}
	// Level-triggered: nothing more to do.
	f.waitJob(t, func(j *batchv1.Job) bool { return finished(j) })
	f.client.ClearActions()
	f.reconcile(t)
	if w := clienttest.Writes(f.client); len(w) != 0 {
		t.Errorf("a finished Job's reconcile wrote %v", w)
	}
}

func TestJobFailsPastBackoffLimitAfterBackoff(t *testing.T) {
	f := newFixture(t, newJob(1, 1, 1))
	f.reconcile(t)
	first := f.waitPods(t, 1, all)[0]
	f.finish(t, first, 1)
	f.waitPods(t, 1, phase(corev1.PodFailed))
	f.reconcile(t)
	if j := f.job(t); j.Status.Failed != 1 || j.Status.Active != 0 || len(j.Status.Conditions) != 0 {
		t.Fatalf("after the first failure: %+v", j.Status)
	}
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Failed == 1 && j.Status.Active == 0 }) // the last write, not the one before
	f.waitPods(t, 1, func(p *corev1.Pod) bool { return len(p.Finalizers) == 0 })
	f.clock.Step(9 * time.Second)
	f.reconcile(t)
	if n := len(f.cachedPods()); n != 1 {
		t.Fatalf("%d pods during the 10s back-off, want 1", n)
	}
	f.clock.Step(time.Second)
	f.reconcile(t)
	second := f.waitPods(t, 1, phase(""))[0]
	f.finish(t, second, 2)
	f.waitPods(t, 2, phase(corev1.PodFailed))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 1 })
	f.reconcile(t)
	j := f.job(t)
	if got := conditionTypes(j); got != "FailureTarget=True/BackoffLimitExceeded,Failed=True/BackoffLimitExceeded" {
		t.Fatalf("conditions %s (status %+v)", got, j.Status)
	}
	if j.Status.Failed != 2 || j.Status.CompletionTime != nil || j.Status.Conditions[1].Message != "Job has reached the specified backoff limit" {
		t.Errorf("status %+v", j.Status)
	}
}

func TestJobOnFailureRestartsCountAgainstBackoffLimit(t *testing.T) {
	job := newJob(1, 1, 2)
	job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	f := newFixture(t, job)
	f.reconcile(t)
	p := f.waitPods(t, 1, all)[0].DeepCopy()
	p.Status.Phase = corev1.PodRunning
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "pi", RestartCount: 2}}
	if _, err := f.client.CoreV1().Pods("default").UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.waitPods(t, 1, phase(corev1.PodRunning))
	f.reconcile(t)
	if got := conditionTypes(f.job(t)); got != "FailureTarget=True/BackoffLimitExceeded" {
		t.Fatalf("conditions %s", got)
	}
	f.eventually(t, "pod deleted", func() bool { return len(f.cachedPods()) == 0 })
	f.waitJob(t, func(j *batchv1.Job) bool { return hasCondition(&j.Status, batchv1.JobFailureTarget) })
	f.reconcile(t)
	if got := conditionTypes(f.job(t)); got != "FailureTarget=True/BackoffLimitExceeded,Failed=True/BackoffLimitExceeded" {
		t.Errorf("conditions %s", got)
	}
}

func TestJobActiveDeadline(t *testing.T) {
	job := newJob(1, 1, 6)
	job.Spec.ActiveDeadlineSeconds = new(int64(5))
	f := newFixture(t, job)
	f.reconcile(t)
	f.waitPods(t, 1, all)
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.StartTime != nil })
	f.clock.Step(4 * time.Second)
	f.reconcile(t)
	if c := f.job(t).Status.Conditions; len(c) != 0 {
		t.Fatalf("conditions before the deadline: %v", c)
	}
	f.clock.Step(time.Second)
	f.reconcile(t)
	j := f.job(t)
	if got := conditionTypes(j); got != "FailureTarget=True/DeadlineExceeded" || j.Status.Conditions[0].Message != "Job was active longer than specified deadline" {
		t.Fatalf("conditions %s", got)
	}
	f.eventually(t, "pod deleted", func() bool { return len(f.cachedPods()) == 0 })
	f.waitJob(t, func(j *batchv1.Job) bool { return len(j.Status.Conditions) == 1 })
	f.reconcile(t)
	if got := conditionTypes(f.job(t)); got != "FailureTarget=True/DeadlineExceeded,Failed=True/DeadlineExceeded" {
		t.Errorf("conditions %s", got)
	}
}

func TestJobSuspendDeletesPodsAndResumeRestartsClock(t *testing.T) {
	f := newFixture(t, newJob(1, 1, 6))
	f.reconcile(t)
	f.waitPods(t, 1, all)
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 1 })
	j := f.job(t)
	j.Spec.Suspend = new(true)
	if _, err := f.client.BatchV1().Jobs("default").Update(context.Background(), j, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Spec.Suspend != nil && *j.Spec.Suspend })
	f.reconcile(t)
	if got := conditionTypes(f.job(t)); got != "Suspended=True/JobSuspended" {
		t.Fatalf("conditions %s", got)
	}
	f.eventually(t, "pod deleted", func() bool { return len(f.cachedPods()) == 0 })
	f.clock.Step(time.Minute)
	j = f.job(t)
	j.Spec.Suspend = new(false)
	if _, err := f.client.BatchV1().Jobs("default").Update(context.Background(), j, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.waitJob(t, func(j *batchv1.Job) bool {
		return j.Spec.Suspend != nil && !*j.Spec.Suspend && len(j.Status.Conditions) == 1
	})
	f.reconcile(t)
	j = f.job(t)
	if got := conditionTypes(j); got != "Suspended=False/JobResumed" || !j.Status.StartTime.Time.Equal(f.clock.Now()) {
		t.Errorf("after resume: conditions %s startTime %v", got, j.Status.StartTime)
	}
	f.waitPods(t, 1, all)
}

func TestJobTTLAfterFinished(t *testing.T) {
	job := newJob(1, 1, 6)
	job.Spec.TTLSecondsAfterFinished = new(int32(10))
	now := metav1.NewTime(t0)
	job.Status = batchv1.JobStatus{StartTime: &now, CompletionTime: &now, Succeeded: 1, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}}
	f := newFixture(t, job)
	f.clock.Step(9 * time.Second)
	f.reconcile(t)
	f.job(t)
	f.clock.Step(time.Second)
	f.reconcile(t)
	if _, err := f.client.BatchV1().Jobs("default").Get(context.Background(), "pi", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("job still there after its TTL: %v", err)
	}
}

func TestOrphanPodLosesTrackingFinalizer(t *testing.T) {
	yes := true
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pi-x", Namespace: "default", Finalizers: []string{TrackingFinalizer},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "gone", UID: "old", Controller: &yes}}}}
	f := newFixture(t, orphan)
	if err := f.ctrl.Reconcile(context.Background(), orphanPrefix+"default/pi-x"); err != nil {
		t.Fatal(err)
	}
	p, err := f.client.CoreV1().Pods("default").Get(context.Background(), "pi-x", metav1.GetOptions{})
	if err != nil || len(p.Finalizers) != 0 {
		t.Errorf("orphan pod finalizers %v (%v)", p.Finalizers, err)
	}
}

func TestBackoffRemaining(t *testing.T) {
	for _, c := range []struct {
		n       int
		elapsed time.Duration
		want    time.Duration
	}{{0, 0, 0}, {1, 0, 10 * time.Second}, {1, 4 * time.Second, 6 * time.Second}, {2, 0, 20 * time.Second}, {3, 0, 40 * time.Second}, {20, 0, 10 * time.Minute}, {1, time.Minute, 0}} {
		if got := backoffRemaining(10*time.Second, c.n, t0, t0.Add(c.elapsed)); got != c.want {
			t.Errorf("backoffRemaining(%d failures, %s ago) = %s, want %s", c.n, c.elapsed, got, c.want)
		}
	}
}
