package job

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func exitCodeRule(action batchv1.PodFailurePolicyAction, op batchv1.PodFailurePolicyOnExitCodesOperator, codes ...int32) batchv1.PodFailurePolicyRule {
	return batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: codes}}
}

func conditionRule(action batchv1.PodFailurePolicyAction, typ corev1.PodConditionType) batchv1.PodFailurePolicyRule {
	return batchv1.PodFailurePolicyRule{Action: action, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: typ, Status: corev1.ConditionTrue}}}
}

func TestPodFailurePolicyFailJobOnExitCode(t *testing.T) {
	job := newJob(1, 1, 6)
	job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
		exitCodeRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, 1),
		exitCodeRule(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpNotIn, 0, 1),
	}}
	f := newFixture(t, job)
	f.reconcile(t)
	f.finish(t, f.waitPods(t, 1, all)[0], 42)
	f.waitPods(t, 1, phase(corev1.PodFailed))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 1 })
	f.reconcile(t)
	j := f.job(t)
	if got := conditionTypes(j); got != "FailureTarget=True/PodFailurePolicy,Failed=True/PodFailurePolicy" {
		t.Fatalf("conditions %s", got)
	}
	want := "Container pi for pod default/pi-00001 failed with exit code 42 matching FailJob rule at index 1"
	if j.Status.Conditions[0].Message != want || j.Status.Conditions[1].Message != want || j.Status.Failed != 1 {
		t.Errorf("status %+v", j.Status)
	}
}

func TestPodFailurePolicyIgnoreThenFailJobOnCondition(t *testing.T) {
	job := newJob(1, 1, 0)
	job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
		exitCodeRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, 3),
		conditionRule(batchv1.PodFailurePolicyActionFailJob, corev1.DisruptionTarget),
	}}
	f := newFixture(t, job)
	f.reconcile(t)
	f.finish(t, f.waitPods(t, 1, all)[0], 3)
	f.waitPods(t, 1, phase(corev1.PodFailed))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 1 })
	f.reconcile(t)
	if j := f.job(t); j.Status.Failed != 0 || len(j.Status.Conditions) != 0 {
		t.Fatalf("an ignored failure counted against backoffLimit 0: %+v", j.Status)
	}
	f.waitPods(t, 1, func(p *corev1.Pod) bool { return len(p.Finalizers) == 0 })
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 0 })
	f.clock.Step(10 * time.Second)
	f.reconcile(t)
	second := f.waitPods(t, 1, phase(""))[0].DeepCopy()
	second.Status.Phase = corev1.PodFailed
	second.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI"}}
	if _, err := f.client.CoreV1().Pods("default").UpdateStatus(context.Background(), second, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.waitPods(t, 2, phase(corev1.PodFailed))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 1 })
	f.reconcile(t)
	j := f.job(t)
	if got := conditionTypes(j); got != "FailureTarget=True/PodFailurePolicy,Failed=True/PodFailurePolicy" {
		t.Fatalf("conditions %s", got)
	}
	if msg := j.Status.Conditions[1].Message; msg != "Pod default/"+second.Name+" has condition DisruptionTarget matching FailJob rule at index 1" {
		t.Errorf("message %q", msg)
	}
}

func TestPodFailurePolicyFailIndex(t *testing.T) {
	job := indexedJob(2, 2, 1<<30)
	job.Spec.BackoffLimitPerIndex = new(int32(3))
	job.Spec.MaxFailedIndexes = new(int32(0))
	job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
		exitCodeRule(batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyOnExitCodesOpIn, 7),
	}}
	f := newFixture(t, job)
	f.reconcile(t)
	f.finish(t, f.waitPods(t, 1, withIndexLabel("1"))[0], 7)
	f.waitPods(t, 1, phase(corev1.PodFailed))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 2 })
	f.reconcile(t)
	j := f.job(t)
	if *j.Status.FailedIndexes != "1" || j.Status.Conditions[0].Reason != batchv1.JobReasonMaxFailedIndexesExceeded ||
		j.Status.Conditions[0].Message != "Job has exceeded the specified maximal number of failed indexes" {
		t.Errorf("status %+v", j.Status)
	}
}

func TestSuccessPolicyEndsIndexedJobEarly(t *testing.T) {
	job := indexedJob(3, 3, 6)
	job.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{
		{SucceededIndexes: new("0,2")},
		{SucceededIndexes: new("1-2"), SucceededCount: new(int32(1))},
	}}
	f := newFixture(t, job)
	f.reconcile(t)
	f.finish(t, f.waitPods(t, 1, withIndexLabel("1"))[0], 0)
	f.waitPods(t, 1, phase(corev1.PodSucceeded))
	f.waitJob(t, func(j *batchv1.Job) bool { return j.Status.Active == 3 })
	f.reconcile(t)
	j := f.job(t)
	if got := conditionTypes(j); got != "SuccessCriteriaMet=True/SuccessPolicy" || j.Status.Conditions[0].Message != "Matched rules at index 1" {
		t.Fatalf("conditions %s (%+v)", got, j.Status.Conditions)
	}
	f.eventually(t, "the other indexes' pods deleted", func() bool { return len(f.cachedPods()) == 1 })
	f.waitJob(t, func(j *batchv1.Job) bool { return len(j.Status.Conditions) == 1 })
	f.reconcile(t)
	j = f.job(t)
	if got := conditionTypes(j); got != "SuccessCriteriaMet=True/SuccessPolicy,Complete=True/SuccessPolicy" || j.Status.CompletedIndexes != "1" {
		t.Errorf("conditions %s, status %+v", got, j.Status)
	}
}

func TestMatchSuccessPolicy(t *testing.T) {
	job := indexedJob(10, 1, 6)
	for _, c := range []struct {
		rule      batchv1.SuccessPolicyRule
		succeeded string
		met       bool
	}{
		{batchv1.SuccessPolicyRule{SucceededIndexes: new("0-2")}, "0,1", false},
		{batchv1.SuccessPolicyRule{SucceededIndexes: new("0-2")}, "0-3", true},
		{batchv1.SuccessPolicyRule{SucceededIndexes: new("0-4"), SucceededCount: new(int32(2))}, "4,7", false},
		{batchv1.SuccessPolicyRule{SucceededIndexes: new("0-4"), SucceededCount: new(int32(2))}, "3,4", true},
		{batchv1.SuccessPolicyRule{SucceededCount: new(int32(3))}, "1,5,9", true},
		{batchv1.SuccessPolicyRule{SucceededCount: new(int32(3))}, "1,5", false},
	} {
		job.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{c.rule}}
		msg, met := matchSuccessPolicy(job, parseIntervals(c.succeeded, 10))
		if met != c.met || (met && msg != "Matched rules at index 0") {
			t.Errorf("rule %+v with %q succeeded: met %v %q", c.rule, c.succeeded, met, msg)
		}
	}
}

func TestMatchFailurePolicyRules(t *testing.T) {
	terminated := func(name string, code int32) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Status: corev1.PodStatus{
		Phase:                 corev1.PodFailed,
		InitContainerStatuses: []corev1.ContainerStatus{terminated("init", 5)},
		ContainerStatuses:     []corev1.ContainerStatus{terminated("side", 0), terminated("main", 2)},
		Conditions:            []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionFalse}},
	}}
	in, notIn := batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn
	named := func(r batchv1.PodFailurePolicyRule, c string) batchv1.PodFailurePolicyRule {
		r.OnExitCodes.ContainerName = &c
		return r
	}
	for _, c := range []struct {
		name    string
		rules   []batchv1.PodFailurePolicyRule
		action  batchv1.PodFailurePolicyAction
		message string
	}{
		{"no rule matches", []batchv1.PodFailurePolicyRule{exitCodeRule(batchv1.PodFailurePolicyActionFailJob, in, 1)}, "", ""},
		{"exit code 0 never matches NotIn", []batchv1.PodFailurePolicyRule{named(exitCodeRule(batchv1.PodFailurePolicyActionIgnore, notIn, 7), "side")}, "", ""},
		{"the first matching rule wins", []batchv1.PodFailurePolicyRule{
			exitCodeRule(batchv1.PodFailurePolicyActionCount, in, 2), exitCodeRule(batchv1.PodFailurePolicyActionFailJob, in, 2),
		}, batchv1.PodFailurePolicyActionCount, ""},
		{"init containers are looked at after the others", []batchv1.PodFailurePolicyRule{exitCodeRule(batchv1.PodFailurePolicyActionFailJob, in, 5)},
			batchv1.PodFailurePolicyActionFailJob, "Container init for pod ns/p failed with exit code 5 matching FailJob rule at index 0"},
		{"containerName narrows the match", []batchv1.PodFailurePolicyRule{
			named(exitCodeRule(batchv1.PodFailurePolicyActionIgnore, notIn, 0), "init"), exitCodeRule(batchv1.PodFailurePolicyActionFailJob, notIn, 0),
		}, batchv1.PodFailurePolicyActionIgnore, ""},
		{"a condition must have the pattern's status", []batchv1.PodFailurePolicyRule{conditionRule(batchv1.PodFailurePolicyActionFailJob, corev1.DisruptionTarget)}, "", ""},
	} {
		job := newJob(1, 1, 6)
		job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: c.rules}
		m := matchFailurePolicy(job, pod)
		if m.action != c.action || m.message != c.message {
			t.Errorf("%s: got %q %q, want %q %q", c.name, m.action, m.message, c.action, c.message)
		}
	}
}
