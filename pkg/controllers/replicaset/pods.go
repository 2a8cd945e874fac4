package replicaset

import (
	"sort"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func replicasOf(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

func secondsDuration(s int32) time.Duration { return time.Duration(s) * time.Second }

// isActive: the pod counts towards replicas (not finished, not being deleted).
func isActive(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && !isTerminal(p)
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// isTerminating: being deleted but not finished, reported as terminatingReplicas.
func isTerminating(p *corev1.Pod) bool {
	return p.DeletionTimestamp != nil && !isTerminal(p)
}

func activePods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if isActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// readySince returns whether the pod's Ready condition is True, and since when.
func readySince(p *corev1.Pod) (bool, time.Time) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue, c.LastTransitionTime.Time
		}
	}
	return false, time.Time{}
}

// isAvailable: ready for at least minReadySeconds at now.
func isAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	ready, since := readySince(p)
	if !ready {
		return false
	}
	return minReadySeconds == 0 || !since.Add(secondsDuration(minReadySeconds)).After(now)
}

// podsToDelete picks the n pods whose loss hurts least, in kube's order.
func podsToDelete(active []*corev1.Pod, n int) []*corev1.Pod {
	ranked := rankForDeletion(active)
	return ranked[:min(n, len(ranked))]
}

// rankForDeletion sorts pods, most deletable first, by kube's rules:
// unscheduled before scheduled; Pending before Unknown before Running;
// not ready before ready; lower pod-deletion-cost first; pods sharing a
// node with more of their siblings first; ready for less time first; more
// container restarts first; newer first. (Kube compares the last two on a
// logarithmic time scale; miniapi compares them exactly.)
func rankForDeletion(pods []*corev1.Pod) []*corev1.Pod {
	onNode := map[string]int{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			onNode[p.Spec.NodeName]++
		}
	}
	out := append([]*corev1.Pod(nil), pods...)
	sort.SliceStable(out, func(i, j int) bool { return deleteBefore(out[i], out[j], onNode) })
	return out
}

var phaseRank = map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}

// deleteBefore reports whether a should be deleted before b.
func deleteBefore(a, b *corev1.Pod, onNode map[string]int) bool {
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if ra, rb := phaseRank[a.Status.Phase], phaseRank[b.Status.Phase]; ra != rb {
		return ra < rb
	}
	aReady, aSince := readySince(a)
	bReady, bSince := readySince(b)
	if aReady != bReady {
		return !aReady
	}
	if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
		return ca < cb
	}
	if na, nb := onNode[a.Spec.NodeName], onNode[b.Spec.NodeName]; na != nb {
		return na > nb
	}
	if aReady && !aSince.Equal(bSince) {
		return aSince.After(bSince)
	}
	if ra, rb := restarts(a), restarts(b); ra != rb {
		return ra > rb
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return b.CreationTimestamp.Before(&a.CreationTimestamp)
	}
	return a.Name < b.Name
}

// deletionCostAnnotation lets users say which pods to keep on scale-down.
const deletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

func deletionCost(p *corev1.Pod) int32 {
	v, err := strconv.ParseInt(p.Annotations[deletionCostAnnotation], 10, 32)
	if err != nil {
		return 0
	}
	return int32(v)
}

func restarts(p *corev1.Pod) int32 {
	var n int32
	for _, s := range p.Status.ContainerStatuses {
		n += s.RestartCount
	}
	return n
}
