package job

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
)

func indexedJob(completions, parallelism, backoffLimit int32) *batchv1.Job {
	j := newJob(completions, parallelism, backoffLimit)
	j.Spec.CompletionMode = new(batchv1.IndexedCompletion)
	return j
}

func indexOf(p *corev1.Pod) string { return p.Annotations[batchv1.JobCompletionIndexAnnotation] }

func withIndexLabel(ix string) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool { return indexOf(p) == ix }
}

func TestIndexedJobRunsEveryIndexOnce(t *testing.T) {
	f := newFixture(t, indexedJob(3, 2, 6))
	f.reconcile(t)
	pods := f.waitPods(t, 2, all)
	for i, p := range pods {
		ix := []string{"0", "1"}[i]
		if indexOf(p) != ix || p.Labels[batchv1.JobCompletionIndexAnnotation] != ix || p.Spec.Hostname != "pi-"+ix || p.GenerateName != "pi-"+ix+"-" {
			t.Errorf("pod %d: generateName %q hostname %q annotations %v labels %v", i, p.GenerateName, p.Spec.Hostname, p.Annotations, p.Labels)
		}
		env := p.Spec.Containers[0].Env
		if len(env) != 1 || env[0].Name != "JOB_COMPLETION_INDEX" || env[0].ValueFrom == nil || env[0].ValueFrom.FieldRef == nil ||
			env[0].ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/job-completion-index']" {
			t.Errorf("pod %d env %+v", i, env)
		}
	}
	// Index 1 succeeds: it is recorded by index, and index 2 starts.
	f.finish(t, pods[1], 0)
	f.waitPods(t, 1, phase(corev1.PodSucceeded))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 2 })
	f.reconcile(t)
	j := f.job(t)
	if j.Status.CompletedIndexes != "1" || j.Status.Succeeded != 1 || len(j.Status.UncountedTerminatedPods.Succeeded) != 0 {
		t.Fatalf("status after index 1: %+v", j.Status)
	}
	third := f.waitPods(t, 1, withIndexLabel("2"))[0]
	if third.Spec.Hostname != "pi-2" {
		t.Errorf("third pod hostname %q", third.Spec.Hostname)
	}
	f.finish(t, pods[0], 0)
	f.finish(t, third, 0)
	f.waitPods(t, 3, phase(corev1.PodSucceeded))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.CompletedIndexes == "1" && j.Status.Active == 2 })
	f.reconcile(t)
	j = f.job(t)
	if j.Status.CompletedIndexes != "0-2" || j.Status.Succeeded != 3 {
		t.Fatalf("status at the end: %+v", j.Status)
	}
	if got := conditionTypes(j); got != "SuccessCriteriaMet=True/CompletionsReached,Complete=True/CompletionsReached" {
		t.Errorf("conditions %s", got)
	}
}

// A second pod for one index (say, made by a crashed controller) is
// deleted, and the missing index is made in a later pass.
func TestIndexedJobDeletesDuplicateIndex(t *testing.T) {
	job := indexedJob(2, 2, 6)
	f := newFixture(t, job)
	for _, name := range []string{"pi-0-aaaaa", "pi-0-bbbbb"} {
		p := newPod(job)
		p.Name, p.UID = name, types.UID("uid-"+name)
		withIndex(p, job, 0)
		if _, err := f.client.CoreV1().Pods("default").Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f.waitPods(t, 2, all)
	f.reconcile(t)
	left := f.waitPods(t, 1, all)
	if indexOf(left[0]) != "0" {
		t.Fatalf("left %v", left[0].Name)
	}
	f.reconcile(t)
	f.waitPods(t, 1, withIndexLabel("1"))
}

// A pass counts finished pods (status writes, finalizer patches) before it
// creates any. A pod it was still waiting for can reach the cache during
// that counting, after the pass listed the pods: the pass must not then
// take its expectations as met and make that pod's index a second time.
func TestIndexedJobPodSeenWhileCountingIsNotMadeTwice(t *testing.T) {
	job := indexedJob(4, 2, 6)
	f := newFixture(t, job)
	f.reconcile(t)
	pods := f.waitPods(t, 2, all)
	f.finish(t, pods[0], 0)
	f.waitPods(t, 1, phase(corev1.PodSucceeded))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 2 })

	// The pod of index 2 is in flight: expected, not yet in the cache. It
	// arrives while the pass writes the status that counts index 0.
	f.ctrl.expect.ExpectCreations("default/pi", 1)
	late := newPod(job)
	late.Name, late.UID = "pi-2-late0", "uid-pi-2-late0"
	withIndex(late, job, 2)
	var arrived sync.Once
	f.client.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" {
			arrived.Do(func() {
				if err := f.client.Tracker().Create(corev1.SchemeGroupVersion.WithResource("pods"), late, "default"); err != nil {
					t.Error(err)
				}
				f.eventually(t, "the late pod observed", func() bool { return f.ctrl.expect.Satisfied("default/pi") })
			})
		}
		return false, nil, nil
	})
	if err := f.ctrl.Reconcile(context.Background(), "default/pi"); err != nil {
		t.Fatal(err)
	}
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.CompletedIndexes == "0" })
	f.reconcile(t)
	// A second pod for index 2 would be created, then deleted as surplus
	// (and, on a server, counted as failed).
	var writes []string
	for _, a := range f.client.Actions() {
		if a.GetResource().Resource == "pods" && (a.GetVerb() == "create" || a.GetVerb() == "delete") {
			writes = append(writes, a.GetVerb())
		}
	}
	if got := strings.Join(writes, " "); got != "create create" {
		t.Fatalf("pod creations and deletions: %s, want only the first two creations", got)
	}
}

func TestIndexedJobBackoffLimitPerIndex(t *testing.T) {
	job := indexedJob(2, 2, 0)
	job.Spec.BackoffLimit = new(int32(1 << 30))
	job.Spec.BackoffLimitPerIndex = new(int32(1))
	f := newFixture(t, job)
	f.reconcile(t)
	pods := f.waitPods(t, 2, all)
	if pods[0].Annotations[batchv1.JobIndexFailureCountAnnotation] != "0" {
		t.Fatalf("first pod annotations %v", pods[0].Annotations)
	}
	if fi := f.job(t).Status.FailedIndexes; fi == nil || *fi != "" {
		t.Errorf("failedIndexes %v, want \"\"", fi)
	}
	f.finish(t, pods[0], 1)
	f.waitPods(t, 1, phase(corev1.PodFailed))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 2 })
	f.reconcile(t)
	if j := f.job(t); j.Status.Failed != 1 || *j.Status.FailedIndexes != "" || len(j.Status.Conditions) != 0 {
		t.Fatalf("after the first failure of index 0: %+v", j.Status)
	}
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Failed == 1 && j.Status.Active == 1 })
	f.clock.Step(10 * time.Second)
	f.reconcile(t)
	retry := f.waitPods(t, 2, withIndexLabel("0"))
	second := retry[1]
	if second.Annotations[batchv1.JobIndexFailureCountAnnotation] != "1" {
		t.Fatalf("retry annotations %v", second.Annotations)
	}
	f.finish(t, second, 1)
	f.finish(t, pods[1], 0)
	f.waitPods(t, 2, phase(corev1.PodFailed))
	f.waitPods(t, 1, phase(corev1.PodSucceeded))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 2 })
	f.reconcile(t)
	j := f.job(t)
	if *j.Status.FailedIndexes != "0" || j.Status.CompletedIndexes != "1" || j.Status.Failed != 2 {
		t.Fatalf("status %+v", j.Status)
	}
	if got := conditionTypes(j); got != "FailureTarget=True/FailedIndexes,Failed=True/FailedIndexes" || j.Status.Conditions[0].Message != "Job has failed indexes" {
		t.Errorf("conditions %s", got)
	}
}

func TestWithIndexShortensLongNames(t *testing.T) {
	job := indexedJob(20, 1, 6)
	job.Name = strings.Repeat("a", 60)
	p := newPod(job)
	withIndex(p, job, 12)
	if want := strings.Repeat("a", 54) + "-12-"; p.GenerateName != want || p.Spec.Hostname != job.Name+"-12" {
		t.Errorf("generateName %q (want %q), hostname %q", p.GenerateName, want, p.Spec.Hostname)
	}
}
