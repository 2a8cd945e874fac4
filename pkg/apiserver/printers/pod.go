package printers

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Row conditions kube-apiserver marks finished pods with, so that kubectl
// can hide them with --show-all=false style filters.
var (
	podSucceededConditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	podFailedConditions    = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodFailed), Message: "The pod failed."}}
)

func podRowConditions(obj runtime.Object) []metav1.TableRowCondition {
	switch obj.(*corev1.Pod).Status.Phase {
	case corev1.PodSucceeded:
		return podSucceededConditions
	case corev1.PodFailed:
		return podFailedConditions
	}
	return nil
}

// podState is what the READY, STATUS and RESTARTS columns summarise.
type podState struct {
	reason      string
	ready       int
	total       int
	restarts    int
	lastRestart metav1.Time
}

func (s *podState) sawTermination(cs corev1.ContainerStatus) {
	if t := cs.LastTerminationState.Terminated; t != nil && s.lastRestart.Before(&t.FinishedAt) {
		s.lastRestart = t.FinishedAt
	}
}

func podCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	pod := obj.(*corev1.Pod)
	s := summarisePod(pod)
	restarts := strconv.Itoa(s.restarts)
	if !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, age(s.lastRestart, now))
	}
	podIP := ""
	if len(pod.Status.PodIPs) > 0 {
		podIP = pod.Status.PodIPs[0].IP
	}
	return []interface{}{
		pod.Name, fmt.Sprintf("%d/%d", s.ready, s.total), s.reason, restarts, age(pod.CreationTimestamp, now),
		orNone(podIP), orNone(pod.Spec.NodeName), orNone(pod.Status.NominatedNodeName), readinessGates(pod),
	}, nil
}

// summarisePod follows kubectl's rules for the STATUS column: the phase (or
// status.reason), overridden by init container progress, then by the
// waiting or terminated reason of a container, and finally Terminating once
// deletionTimestamp is set.
func summarisePod(pod *corev1.Pod) podState {
	s := podState{reason: string(pod.Status.Phase), total: len(pod.Spec.Containers)}
	if pod.Status.Reason != "" {
		s.reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.reason = corev1.PodReasonSchedulingGated
		}
	}
	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
			s.total++
		}
	}
	initializing, sidecarRestarts := summariseInit(pod, sidecars, &s)
	if !initializing || podInitialized(pod) {
		s.restarts = sidecarRestarts
		summariseContainers(pod, &s)
	}
	if pod.DeletionTimestamp != nil {
		if pod.Status.Reason == "NodeLost" {
			s.reason = "Unknown"
		} else {
			s.reason = "Terminating"
		}
	}
	return s
}

// summariseInit walks the init containers; it reports whether the pod is
// still initializing and the restarts of its sidecar containers.
func summariseInit(pod *corev1.Pod, sidecars map[string]bool, s *podState) (initializing bool, sidecarRestarts int) {
	for i, cs := range pod.Status.InitContainerStatuses {
		s.restarts += int(cs.RestartCount)
		s.sawTermination(cs)
		if sidecars[cs.Name] {
			sidecarRestarts += int(cs.RestartCount)
			if cs.Started != nil && *cs.Started {
				if cs.Ready {
					s.ready++
				}
				continue
			}
		}
		switch t, w := cs.State.Terminated, cs.State.Waiting; {
		case t != nil && t.ExitCode == 0:
			continue
		case t != nil && t.Reason != "":
			s.reason = "Init:" + t.Reason
		case t != nil && t.Signal != 0:
			s.reason = fmt.Sprintf("Init:Signal:%d", t.Signal)
		case t != nil:
			s.reason = fmt.Sprintf("Init:ExitCode:%d", t.ExitCode)
		case w != nil && w.Reason != "" && w.Reason != "PodInitializing":
			s.reason = "Init:" + w.Reason
		default:
			s.reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		return true, sidecarRestarts
	}
	return false, sidecarRestarts
}

// summariseContainers walks the app containers from last to first, so the
// first container's reason wins, as in kubectl.
func summariseContainers(pod *corev1.Pod, s *podState) {
	hasRunning := false
	for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
		cs := pod.Status.ContainerStatuses[i]
		s.restarts += int(cs.RestartCount)
		s.sawTermination(cs)
		switch t, w := cs.State.Terminated, cs.State.Waiting; {
		case w != nil && w.Reason != "":
			s.reason = w.Reason
		case t != nil && t.Reason != "":
			s.reason = t.Reason
		case t != nil && t.Signal != 0:
			s.reason = fmt.Sprintf("Signal:%d", t.Signal)
		case t != nil:
			s.reason = fmt.Sprintf("ExitCode:%d", t.ExitCode)
		case cs.Ready && cs.State.Running != nil:
			hasRunning = true
			s.ready++
		}
	}
	if s.reason == "Completed" && hasRunning {
		s.reason = "NotReady"
		if podConditionTrue(pod, corev1.PodReady) {
			s.reason = "Running"
		}
	}
}

func podInitialized(pod *corev1.Pod) bool {
	return podConditionTrue(pod, corev1.PodInitialized)
}

func podConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// readinessGates is "<true>/<total>" of the pod's readiness gates.
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	trueCount := 0
	for _, g := range pod.Spec.ReadinessGates {
		if podConditionTrue(pod, g.ConditionType) {
			trueCount++
		}
	}
	return fmt.Sprintf("%d/%d", trueCount, len(pod.Spec.ReadinessGates))
}
