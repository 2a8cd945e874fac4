package kubelet

// Run-to-completion pods. A pod whose restartPolicy is Never or OnFailure
// runs for its run duration after its containers start, then every
// container exits with the pod's exit code (0 unless annotated):
//
//   - exit 0: the pod is Succeeded, each container terminated with reason
//     Completed, as a real kubelet reports it;
//   - exit N≠0 and restartPolicy Never: the pod is Failed, reason Error;
//   - exit N≠0 and restartPolicy OnFailure: the kubelet restarts the
//     containers, as a real one does: restartCount goes up, lastState holds
//     the Error exit, and the pod stays Running. The first restart is at
//     once; later ones wait in CrashLoopBackOff for 10s, 20s, 40s … (at
//     most 5 minutes), kube's container restart backoff, counted from the
//     exit. The pod never ends by itself: a Job counts its restarts
//     against backoffLimit and deletes it.
//
// Everything is read from the pod's status (when the containers started,
// when they last exited, how often they restarted), so a restart of
// miniapi or a repeated reconcile takes the same step.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The annotations that shape a simulated run (see CONTRACT "Simulated
// workloads").
const (
	// ExitCodeAnnotation is the exit code every container of the pod ends
	// with ("1"); absent: 0.
	ExitCodeAnnotation = "miniapi.dev/exit-code"
	// RunDurationAnnotation overrides --pod-run-duration for the pod ("5s").
	RunDurationAnnotation = "miniapi.dev/run-duration"
)

// DefaultPodRunDuration is --pod-run-duration's default.
const DefaultPodRunDuration = 2 * time.Second

// Kube's container restart backoff: 10s doubling up to 5 minutes.
const (
	restartBackoffBase = 10 * time.Second
	restartBackoffMax  = 5 * time.Minute
)

// runsToCompletion: the pod's containers exit by themselves.
func runsToCompletion(p *corev1.Pod) bool {
	return p.Spec.RestartPolicy == corev1.RestartPolicyNever || p.Spec.RestartPolicy == corev1.RestartPolicyOnFailure
}

// runDuration is how long the pod's containers run: the annotation when it
// is a valid non-negative duration, else the kubelet's default.
func (k *Kubelet) runDuration(p *corev1.Pod) time.Duration {
	if v, ok := p.Annotations[RunDurationAnnotation]; ok {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return d
		}
		k.log.Warn("ignoring an invalid run duration", "pod", p.Namespace+"/"+p.Name, "annotation", RunDurationAnnotation, "value", v)
	}
	return k.runFor
}

// exitCode is the code the pod's containers exit with: the annotation when
// it is an integer, else 0.
func (k *Kubelet) exitCode(p *corev1.Pod) int32 {
	v, ok := p.Annotations[ExitCodeAnnotation]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		k.log.Warn("ignoring an invalid exit code", "pod", p.Namespace+"/"+p.Name, "annotation", ExitCodeAnnotation, "value", v)
		return 0
	}
	return int32(n)
}

// restartBackoff is how long a container waits before its restartCount-th
// restart: none before the first, then 10s doubling, capped.
func restartBackoff(restartCount int32) time.Duration {
	if restartCount <= 1 {
		return 0
	}
	d := restartBackoffBase
	for i := int32(2); i < restartCount && d < restartBackoffMax; i++ {
		d *= 2
	}
	return min(d, restartBackoffMax)
}

// runStart is when a run of a pod's containers began, for one run state
// (the restart count and StartedAt).
type runStart struct {
	state string
	at    time.Time
}

// runningSince is when the pod's current run began. StartedAt is stored
// with one-second precision, rounded down, so a run that started less than
// a second ago would end up to a second early; for those the time this
// kubelet first saw the run is used instead, which is at most one
// reconcile late.
func (k *Kubelet) runningSince(pod *corev1.Pod, cs corev1.ContainerStatus, now time.Time) time.Time {
	started := cs.State.Running.StartedAt.Time
	if now.Sub(started) >= time.Second {
		return started
	}
	state := runState(pod)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.running == nil {
		k.running = map[types.UID]runStart{}
	}
	if r, ok := k.running[pod.UID]; ok && r.state == state {
		return r.at
	}
	k.running[pod.UID] = runStart{state: state, at: now}
	return now
}

// run takes the next step of a Running run-to-completion pod: the exit
// once the run duration has passed, or the restart once the backoff has;
// before that it comes back when it will be due.
func (k *Kubelet) run(ctx context.Context, key string, pod *corev1.Pod) error {
	if len(pod.Status.ContainerStatuses) == 0 || k.alreadyPosted(pod) {
		return nil
	}
	first := pod.Status.ContainerStatuses[0]
	now := k.clock.Now()
	var (
		due    time.Time
		next   corev1.PodStatus
		action string
	)
	switch {
	case first.State.Running != nil:
		due = k.runningSince(pod, first, now).Add(k.runDuration(pod))
		code := k.exitCode(pod)
		switch {
		case code == 0 || pod.Spec.RestartPolicy == corev1.RestartPolicyNever:
			next, action = exitedStatus(pod, code, metav1.NewTime(now)), fmt.Sprintf("containers exit with code %d", code)
		default:
			backoff := restartBackoff(first.RestartCount + 1)
			next, action = crashedStatus(pod, code, backoff, metav1.NewTime(now)), fmt.Sprintf("containers exit with code %d, restart after %s", code, backoff)
		}
	case first.State.Waiting != nil && first.LastTerminationState.Terminated != nil:
		due = first.LastTerminationState.Terminated.FinishedAt.Add(restartBackoff(first.RestartCount))
		next, action = restartedStatus(pod, metav1.NewTime(now)), "restart containers after back-off"
	default:
		return nil
	}
	if wait := due.Sub(now); wait > 0 {
		k.driver.EnqueueAfter(key, wait)
		return nil
	}
	k.log.Info("reconcile", "pod", key, "observed", "Running", "action", action)
	if err := k.postStatus(ctx, pod, next); err != nil {
		return err
	}
	k.recordExit(pod, next)
	return nil
}

// alreadyPosted: this pod's exit or restart was sent from the state the
// cache still holds.
func (k *Kubelet) alreadyPosted(pod *corev1.Pod) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	from, ok := k.exited[pod.UID]
	return ok && from == runState(pod)
}

// runState sums up where a run-to-completion pod is: its first
// container's restart count and state, with the time it began.
func runState(pod *corev1.Pod) string {
	if len(pod.Status.ContainerStatuses) == 0 {
		return ""
	}
	cs := pod.Status.ContainerStatuses[0]
	switch {
	case cs.State.Running != nil:
		return fmt.Sprintf("%d running %s", cs.RestartCount, cs.State.Running.StartedAt.UTC())
	case cs.State.Waiting != nil:
		return fmt.Sprintf("%d waiting", cs.RestartCount)
	}
	return fmt.Sprintf("%d terminated", cs.RestartCount)
}

// postStatus patches pod's status to next and remembers the version it
// was computed from.
func (k *Kubelet) postStatus(ctx context.Context, pod *corev1.Pod, next corev1.PodStatus) error {
	patch, err := statusPatch(pod.UID, pod.Status, next)
	if err != nil {
		return err
	}
	if _, err := k.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("posting status of %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	k.mu.Lock()
	k.exited[pod.UID] = runState(pod)
	k.mu.Unlock()
	return nil
}

// recordExit records the kubelet's events for a restart or a back-off.
func (k *Kubelet) recordExit(pod *corev1.Pod, next corev1.PodStatus) {
	rec := k.recorder(pod.Spec.NodeName)
	for _, cs := range next.ContainerStatuses {
		ref := containerRef(pod, cs.Name)
		switch {
		case cs.State.Waiting != nil:
			rec.Eventf(ref, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container %s in pod %s", cs.Name, podDesc(pod))
		case cs.State.Running != nil:
			rec.Eventf(ref, corev1.EventTypeNormal, "Pulled", "Container image %q already present on machine", imageOf(pod, cs.Name))
			rec.Eventf(ref, corev1.EventTypeNormal, "Created", "Created container: %s", cs.Name)
			rec.Eventf(ref, corev1.EventTypeNormal, "Started", "Started container %s", cs.Name)
		}
	}
}

// podDesc names a pod as the kubelet's messages do: name_namespace(uid).
func podDesc(pod *corev1.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

func imageOf(pod *corev1.Pod, container string) string {
	for _, c := range pod.Spec.Containers {
		if c.Name == container {
			return c.Image
		}
	}
	return ""
}
