package controllers

import (
	"context"
	"regexp"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// indexedJob is batchJob in completionMode Indexed.
func indexedJob(name string, completions, parallelism int32, annotations map[string]string) *batchv1.Job {
	j := batchJob(name, completions, parallelism, 6, annotations)
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	return j
}

// Three Jobs run side by side on the real server: an Indexed Job runs
// each index once, with kube's pod names, hostnames, labels and env; a
// podFailurePolicy FailJob rule on the exit code fails a Job at its first
// failure; a successPolicy ends an Indexed Job after one index.
func TestJobIndexedAndPolicies(t *testing.T) {
	_, c := start(t, "--pod-run-duration=300ms")
	ctx := ctxFor(t)

	failFast := batchJob("failfast", 1, 1, 6, map[string]string{"miniapi.dev/exit-code": "42"})
	failFast.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailJob,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
	}}}
	early := indexedJob("early", 3, 1, nil)
	early.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr(int32(1))}}}
	for _, j := range []*batchv1.Job{indexedJob("idx", 4, 2, nil), failFast, early} {
		if _, err := c.BatchV1().Jobs(ns).Create(ctx, j, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating job %s: %v", j.Name, err)
		}
	}

	job := waitJobFinished(t, c, "idx", 2, 45*time.Second)
	if got := conditionsOf(job); got != "SuccessCriteriaMet=True/CompletionsReached,Complete=True/CompletionsReached" {
		t.Fatalf("idx: conditions %s", got)
	}
	if job.Status.CompletedIndexes != "0-3" || job.Status.Succeeded != 4 || job.Status.Failed != 0 {
		t.Errorf("idx: status %+v", job.Status)
	}
	pods := jobPods(t, c, "idx")
	if len(pods) != 4 {
		t.Fatalf("idx: %d pods, want 4", len(pods))
	}
	seen := map[string]bool{}
	for _, p := range pods {
		ix := p.Annotations["batch.kubernetes.io/job-completion-index"]
		seen[ix] = true
		if !regexp.MustCompile(`^idx-`+ix+`-[a-z0-9]{5}$`).MatchString(p.Name) || p.Labels["batch.kubernetes.io/job-completion-index"] != ix ||
			p.Spec.Hostname != "idx-"+ix || p.Status.Phase != corev1.PodSucceeded {
			t.Errorf("idx: pod %s: index %q labels %v hostname %q phase %s", p.Name, ix, p.Labels, p.Spec.Hostname, p.Status.Phase)
		}
		env := p.Spec.Containers[0].Env
		if len(env) != 1 || env[0].Name != "JOB_COMPLETION_INDEX" || env[0].ValueFrom == nil || env[0].ValueFrom.FieldRef == nil ||
			env[0].ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/job-completion-index']" || env[0].ValueFrom.FieldRef.APIVersion != "v1" {
			t.Errorf("idx: pod %s env %+v", p.Name, env)
		}
	}
	if len(seen) != 4 || !seen["0"] || !seen["3"] {
		t.Errorf("idx: indexes %v", seen)
	}

	job = waitJobFinished(t, c, "failfast", 1, 30*time.Second)
	if got := conditionsOf(job); got != "FailureTarget=True/PodFailurePolicy,Failed=True/PodFailurePolicy" {
		t.Fatalf("failfast: conditions %s", got)
	}
	failed := jobPods(t, c, "failfast")
	want := "Container work for pod default/" + failed[0].Name + " failed with exit code 42 matching FailJob rule at index 0"
	if len(failed) != 1 || job.Status.Failed != 1 || job.Status.Conditions[1].Message != want {
		t.Errorf("failfast: %d pods, status %+v; want one pod and message %q", len(failed), job.Status, want)
	}

	job = waitJobFinished(t, c, "early", 1, 30*time.Second)
	if got := conditionsOf(job); got != "SuccessCriteriaMet=True/SuccessPolicy,Complete=True/SuccessPolicy" || job.Status.Conditions[1].Message != "Matched rules at index 0" {
		t.Fatalf("early: conditions %s (%+v)", got, job.Status.Conditions)
	}
	if job.Status.CompletedIndexes != "0" || job.Status.Succeeded != 1 || len(jobPods(t, c, "early")) != 1 {
		t.Errorf("early: status %+v, %d pods", job.Status, len(jobPods(t, c, "early")))
	}
	// The Job stays finished: nothing restarts the other indexes.
	got, err := c.BatchV1().Jobs(ns).Get(context.Background(), "early", metav1.GetOptions{})
	if err != nil || got.Status.Active != 0 {
		t.Errorf("early after finishing: %v %+v", err, got.Status)
	}
}
