package controllers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// batchJob is a run-to-completion Job; annotations go on its pods.
func batchJob(name string, completions, parallelism, backoffLimit int32, annotations map[string]string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{
			Completions: &completions, Parallelism: &parallelism, BackoffLimit: &backoffLimit,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "work", Image: "busybox"}}},
			},
		},
	}
}

func conditionsOf(j *batchv1.Job) string {
	var out []string
	for _, c := range j.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return strings.Join(out, ",")
}

// jobPods lists the pods of the Job, by its job-name label.
func jobPods(t *testing.T, c kubernetes.Interface, name string) []corev1.Pod {
	t.Helper()
	list, err := c.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitJobFinished waits for the Job's Complete or Failed condition,
// failing if more than maxActive pods ever ran at once.
func waitJobFinished(t *testing.T, c kubernetes.Interface, name string, maxActive int, timeout time.Duration) *batchv1.Job {
	t.Helper()
	var job *batchv1.Job
	eventually(t, timeout, "job "+name+" finished", func() (bool, string) {
		j, err := c.BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		running := 0
		for _, p := range jobPods(t, c, name) {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running++
			}
		}
		if running > maxActive {
			t.Fatalf("%d pods running at once, parallelism %d", running, maxActive)
		}
		job = j
		done := strings.Contains(conditionsOf(j), "Complete=True") || strings.Contains(conditionsOf(j), "Failed=True")
		return done, fmt.Sprintf("status %+v", j.Status)
	})
	return job
}

func TestJobCompletesWithParallelism(t *testing.T) {
	_, c := start(t, "--pod-run-duration=300ms")
	ctx := ctxFor(t)
	created, err := c.BatchV1().Jobs(ns).Create(ctx, batchJob("calc", 3, 2, 6, nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := created.Spec.Selector.MatchLabels["batch.kubernetes.io/controller-uid"]; got != string(created.UID) {
		t.Errorf("generated selector %v", created.Spec.Selector)
	}
	job := waitJobFinished(t, c, "calc", 2, 45*time.Second)
	if got := conditionsOf(job); got != "SuccessCriteriaMet=True/CompletionsReached,Complete=True/CompletionsReached" {
		t.Fatalf("conditions %s", got)
	}
	st := job.Status
	if st.Succeeded != 3 || st.Failed != 0 || st.Active != 0 || st.CompletionTime == nil || st.StartTime == nil ||
		st.UncountedTerminatedPods == nil || *st.Ready != 0 || *st.Terminating != 0 {
		t.Errorf("status %+v", st)
	}
	pods := jobPods(t, c, "calc")
	if len(pods) != 3 {
		t.Fatalf("%d pods, want 3", len(pods))
	}
	for _, p := range pods {
		term := p.Status.ContainerStatuses[0].State.Terminated
		if p.Status.Phase != corev1.PodSucceeded || term == nil || term.Reason != "Completed" || len(p.Finalizers) != 0 ||
			p.Labels["controller-uid"] != string(created.UID) || p.Labels["job-name"] != "calc" {
			t.Errorf("pod %s: phase %s state %+v finalizers %v labels %v", p.Name, p.Status.Phase, p.Status.ContainerStatuses[0].State, p.Finalizers, p.Labels)
		}
	}
}

func TestJobFailsWithBackoff(t *testing.T) {
	_, c := start(t)
	ctx := ctxFor(t)
	failing := batchJob("fail", 1, 1, 1, map[string]string{"miniapi.dev/exit-code": "3", "miniapi.dev/run-duration": "100ms"})
	if _, err := c.BatchV1().Jobs(ns).Create(ctx, failing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The second pod comes after kube's 10s back-off.
	job := waitJobFinished(t, c, "fail", 1, 45*time.Second)
	if got := conditionsOf(job); got != "FailureTarget=True/BackoffLimitExceeded,Failed=True/BackoffLimitExceeded" {
		t.Fatalf("conditions %s", got)
	}
	if job.Status.Failed != 2 || job.Status.Succeeded != 0 || job.Status.CompletionTime != nil || job.Status.Conditions[1].Message != "Job has reached the specified backoff limit" {
		t.Errorf("status %+v", job.Status)
	}
	pods := jobPods(t, c, "fail")
	if len(pods) != 2 {
		t.Fatalf("%d pods, want 2", len(pods))
	}
	var ended []time.Time
	for _, p := range pods {
		term := p.Status.ContainerStatuses[0].State.Terminated
		if p.Status.Phase != corev1.PodFailed || term == nil || term.ExitCode != 3 || term.Reason != "Error" {
			t.Fatalf("pod %s: phase %s state %+v", p.Name, p.Status.Phase, p.Status.ContainerStatuses[0].State)
		}
		ended = append(ended, term.FinishedAt.Time)
	}
	if gap := ended[1].Sub(ended[0]).Abs(); gap < 10*time.Second {
		t.Errorf("the two pods ended %s apart: no 10s back-off", gap)
	}
}

func TestJobTTLAfterFinishedDeletesJobAndPods(t *testing.T) {
	_, c := start(t, "--pod-run-duration=100ms")
	ctx := ctxFor(t)
	j := batchJob("brief", 1, 1, 6, nil)
	j.Spec.TTLSecondsAfterFinished = ptr(int32(0))
	if _, err := c.BatchV1().Jobs(ns).Create(ctx, j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "job and pods gone", func() (bool, string) {
		_, err := c.BatchV1().Jobs(ns).Get(ctx, "brief", metav1.GetOptions{})
		pods := jobPods(t, c, "brief")
		return apierrors.IsNotFound(err) && len(pods) == 0, fmt.Sprintf("job: %v, %d pods", err, len(pods))
	})
}
