package kubelet

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

// runPod is a bound pod that runs to completion.
func runPod(name string, policy corev1.RestartPolicy, annotations map[string]string) *corev1.Pod {
	p := boundPod(name)
	p.Spec.RestartPolicy = policy
	p.Annotations = annotations
	return p
}

// step reconciles the pod and waits until the cache holds a version of it
// that done accepts.
func (e env) step(t *testing.T, name string, done func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	if err := e.k.Reconcile(context.Background(), "default/"+name); err != nil {
		t.Fatal(err)
	}
	var got *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		p, err := e.k.pods.Pods("default").Get(name)
		if err != nil {
			return false, nil
		}
		got = p
		return done(p), nil
	})
	if err != nil {
		t.Fatalf("pod %s never reached the expected state; last: phase %s statuses %+v", name, got.Status.Phase, got.Status.ContainerStatuses)
	}
	return got
}

func phaseIs(ph corev1.PodPhase) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool { return p.Status.Phase == ph }
}

func condition(p *corev1.Pod, t corev1.PodConditionType) corev1.PodCondition {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return corev1.PodCondition{}
}

func TestRunToCompletionSucceedsAfterRunDuration(t *testing.T) {
	e := setupConfig(t, Config{PodRunDuration: 3 * time.Second}, runPod("ok", corev1.RestartPolicyNever, nil))
	e.step(t, "ok", phaseIs(corev1.PodRunning))
	e.clock.Step(2 * time.Second)
	if p := e.step(t, "ok", func(*corev1.Pod) bool { return true }); p.Status.Phase != corev1.PodRunning {
		t.Fatalf("phase %s before the run duration passed", p.Status.Phase)
	}
	e.clock.Step(time.Second)
	p := e.step(t, "ok", phaseIs(corev1.PodSucceeded))
	term := p.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.ExitCode != 0 || term.Reason != "Completed" || !term.FinishedAt.Time.Equal(e.clock.Now()) {
		t.Fatalf("container state %+v, want terminated 0 Completed", p.Status.ContainerStatuses[0].State)
	}
	if c := condition(p, corev1.PodReady); c.Status != corev1.ConditionFalse || c.Reason != "PodCompleted" {
		t.Errorf("Ready condition %+v, want False/PodCompleted", c)
	}
	if p.Status.ContainerStatuses[0].Ready {
		t.Error("a terminated container is ready")
	}
}

func TestRunToCompletionExitCodeAndDurationAnnotations(t *testing.T) {
	pod := runPod("bad", corev1.RestartPolicyNever, map[string]string{ExitCodeAnnotation: "3", RunDurationAnnotation: "10s"})
	e := setupConfig(t, Config{PodRunDuration: time.Second}, pod)
	e.step(t, "bad", phaseIs(corev1.PodRunning))
	e.clock.Step(5 * time.Second)
	if p := e.step(t, "bad", func(*corev1.Pod) bool { return true }); p.Status.Phase != corev1.PodRunning {
		t.Fatalf("annotation run duration not honoured: phase %s after 5s", p.Status.Phase)
	}
	e.clock.Step(5 * time.Second)
	p := e.step(t, "bad", phaseIs(corev1.PodFailed))
	term := p.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.ExitCode != 3 || term.Reason != "Error" {
		t.Fatalf("container state %+v, want terminated 3 Error", p.Status.ContainerStatuses[0].State)
	}
	if c := condition(p, corev1.ContainersReady); c.Reason != "PodFailed" {
		t.Errorf("ContainersReady %+v, want reason PodFailed", c)
	}
}

func TestOnFailureRestartsWithBackoff(t *testing.T) {
	pod := runPod("crash", corev1.RestartPolicyOnFailure, map[string]string{ExitCodeAnnotation: "1"})
	e := setupConfig(t, Config{PodRunDuration: time.Second}, pod)
	e.step(t, "crash", phaseIs(corev1.PodRunning))
	restarts := func(n int32) func(*corev1.Pod) bool {
		return func(p *corev1.Pod) bool { return p.Status.ContainerStatuses[0].RestartCount == n }
	}
	// First exit: restarted at once.
	e.clock.Step(time.Second)
	p := e.step(t, "crash", restarts(1))
	cs := p.Status.ContainerStatuses[0]
	if p.Status.Phase != corev1.PodRunning || cs.State.Running == nil || cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 1 {
		t.Fatalf("after the first exit: phase %s state %+v last %+v", p.Status.Phase, cs.State, cs.LastTerminationState)
	}
	// Second exit: CrashLoopBackOff for 10s, then running again.
	e.clock.Step(time.Second)
	p = e.step(t, "crash", restarts(2))
	cs = p.Status.ContainerStatuses[0]
	if cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" || condition(p, corev1.PodReady).Status != corev1.ConditionFalse {
		t.Fatalf("after the second exit: state %+v, Ready %+v", cs.State, condition(p, corev1.PodReady))
	}
	e.clock.Step(9 * time.Second)
	if p = e.step(t, "crash", func(*corev1.Pod) bool { return true }); p.Status.ContainerStatuses[0].State.Waiting == nil {
		t.Fatal("restarted before the 10s back-off")
	}
	e.clock.Step(time.Second)
	p = e.step(t, "crash", func(p *corev1.Pod) bool { return p.Status.ContainerStatuses[0].State.Running != nil })
	if condition(p, corev1.PodReady).Status != corev1.ConditionTrue || p.Status.ContainerStatuses[0].RestartCount != 2 {
		t.Errorf("after the back-off: Ready %+v restarts %d", condition(p, corev1.PodReady), p.Status.ContainerStatuses[0].RestartCount)
	}
}

func TestAlwaysPodsKeepRunning(t *testing.T) {
	e := setupConfig(t, Config{PodRunDuration: time.Second}, runPod("web", corev1.RestartPolicyAlways, nil))
	e.step(t, "web", phaseIs(corev1.PodRunning))
	e.clock.Step(time.Hour)
	e.client.ClearActions()
	if p := e.step(t, "web", func(*corev1.Pod) bool { return true }); p.Status.Phase != corev1.PodRunning {
		t.Fatalf("restartPolicy Always pod is %s", p.Status.Phase)
	}
	if w := clienttest.Writes(e.client); len(w) != 0 {
		t.Errorf("kubelet wrote %v for a long-running pod", w)
	}
}

func TestRestartBackoff(t *testing.T) {
	for n, want := range map[int32]time.Duration{0: 0, 1: 0, 2: 10 * time.Second, 3: 20 * time.Second, 4: 40 * time.Second, 7: 5 * time.Minute, 40: 5 * time.Minute} {
		if got := restartBackoff(n); got != want {
			t.Errorf("restartBackoff(%d) = %s, want %s", n, got, want)
		}
	}
}
