package kubelet

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition reasons a real kubelet writes once a pod's containers are done.
const (
	reasonPodCompleted       = "PodCompleted"
	reasonPodFailed          = "PodFailed"
	reasonContainersNotReady = "ContainersNotReady"
)

// exitedStatus is the status of a pod whose containers all exited with
// code and will not restart: Succeeded (reason Completed) for 0, Failed
// (reason Error) otherwise. Ready and ContainersReady turn False with
// reason PodCompleted or PodFailed, and the sandbox is gone
// (PodReadyToStartContainers False), as a real kubelet reports it.
func exitedStatus(pod *corev1.Pod, code int32, now metav1.Time) corev1.PodStatus {
	st := *pod.Status.DeepCopy()
	phase, reason, condReason := corev1.PodSucceeded, "Completed", reasonPodCompleted
	if code != 0 {
		phase, reason, condReason = corev1.PodFailed, "Error", reasonPodFailed
	}
	st.Phase = phase
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		cs.State = corev1.ContainerState{Terminated: terminated(cs, code, reason, now)}
		cs.Ready, cs.Started = false, ptrTo(false)
	}
	setCondition(&st, corev1.PodReadyToStartContainers, corev1.ConditionFalse, "", "", now)
	initReason := ""
	if phase == corev1.PodSucceeded {
		initReason = reasonPodCompleted
	}
	setCondition(&st, corev1.PodInitialized, corev1.ConditionTrue, initReason, "", now)
	setCondition(&st, corev1.PodReady, corev1.ConditionFalse, condReason, "", now)
	setCondition(&st, corev1.ContainersReady, corev1.ConditionFalse, condReason, "", now)
	return st
}

// crashedStatus is the status of a restartPolicy OnFailure pod whose
// containers exited with code≠0: each one's restartCount goes up and
// lastState holds the exit. With no backoff the containers run again at
// once; otherwise they wait in CrashLoopBackOff and the pod is not Ready.
func crashedStatus(pod *corev1.Pod, code int32, backoff time.Duration, now metav1.Time) corev1.PodStatus {
	st := *pod.Status.DeepCopy()
	var waiting []string
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		cs.LastTerminationState = corev1.ContainerState{Terminated: terminated(cs, code, "Error", now)}
		cs.RestartCount++
		if backoff == 0 {
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
			cs.Ready, cs.Started = true, ptrTo(true)
			continue
		}
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason:  "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", backoff, cs.Name, podDesc(pod)),
		}}
		cs.Ready, cs.Started = false, ptrTo(false)
		waiting = append(waiting, cs.Name)
	}
	if len(waiting) > 0 {
		msg := fmt.Sprintf("containers with unready status: [%s]", strings.Join(waiting, " "))
		setCondition(&st, corev1.PodReady, corev1.ConditionFalse, reasonContainersNotReady, msg, now)
		setCondition(&st, corev1.ContainersReady, corev1.ConditionFalse, reasonContainersNotReady, msg, now)
	}
	return st
}

// restartedStatus is the status once the back-off has passed: every
// container runs again and the pod is Ready.
func restartedStatus(pod *corev1.Pod, now metav1.Time) corev1.PodStatus {
	st := *pod.Status.DeepCopy()
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
		cs.Ready, cs.Started = true, ptrTo(true)
	}
	setCondition(&st, corev1.PodReady, corev1.ConditionTrue, "", "", now)
	setCondition(&st, corev1.ContainersReady, corev1.ConditionTrue, "", "", now)
	return st
}

// terminated is a container's exit, started when its running state began.
func terminated(cs *corev1.ContainerStatus, code int32, reason string, now metav1.Time) *corev1.ContainerStateTerminated {
	started := now
	if cs.State.Running != nil {
		started = cs.State.Running.StartedAt
	}
	return &corev1.ContainerStateTerminated{
		ExitCode: code, Reason: reason, StartedAt: started, FinishedAt: now, ContainerID: cs.ContainerID,
	}
}

// setCondition sets the condition of type t, moving its transition time
// only when its status changes; a missing one is appended.
func setCondition(st *corev1.PodStatus, t corev1.PodConditionType, status corev1.ConditionStatus, reason, message string, now metav1.Time) {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message = status, reason, message
		return
	}
	st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: now})
}
