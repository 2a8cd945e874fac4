package daemonset

// RollingUpdate with maxSurge, as kube's daemonset controller runs it:
// instead of deleting an old pod and then making its replacement, the
// controller first makes the new pod on the node, beside the old one, and
// deletes the old pod once the new one is available. At most maxSurge
// nodes wait for a new pod to become available at a time; a node whose
// old pod is unavailable anyway gets its new pod at once.

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// maxSurge scales rollingUpdate.maxSurge against desired (percentages
// round up); 0 without a rolling update.
func maxSurge(ds *appsv1.DaemonSet, desired int) int {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || ru == nil || ru.MaxSurge == nil {
		return 0
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, desired, true)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// desiredNodes counts the nodes ds should run on.
func desiredNodes(plan *nodePlan) int {
	n := 0
	for _, node := range plan.nodes {
		if node.run {
			n++
		}
	}
	return n
}

// splitUpdated returns the one updated and the one old pod on a node;
// ok is false when there are several of either (the manage step first
// deletes the extra ones).
func splitUpdated(ds *appsv1.DaemonSet, pods []*corev1.Pod, hash string) (updated, old *corev1.Pod, ok bool) {
	for _, p := range pods {
		if isUpdated(p, ds, hash) {
			if updated != nil {
				return nil, nil, false
			}
			updated = p
		} else {
			if old != nil {
				return nil, nil, false
			}
			old = p
		}
	}
	return updated, old, true
}

// surplusPods are the pods on a node beyond the one (or, surging, the
// oldest updated and the oldest old one) that may stay; pods is oldest
// first.
func surplusPods(ds *appsv1.DaemonSet, pods []*corev1.Pod, hash string, surge bool) []*corev1.Pod {
	if !surge {
		return pods[1:]
	}
	var updated, old *corev1.Pod
	var extra []*corev1.Pod
	for _, p := range pods {
		switch {
		case isUpdated(p, ds, hash) && updated == nil:
			updated = p
		case !isUpdated(p, ds, hash) && old == nil:
			old = p
		default:
			extra = append(extra, p)
		}
	}
	return extra
}

// rollingSurge picks the next surge step: the nodes to make a new pod on
// and the old pods whose replacement is available.
func rollingSurge(ds *appsv1.DaemonSet, plan *nodePlan, hash string, surge int, now time.Time) ([]string, []*corev1.Pod) {
	var create, candidates []string
	var del []*corev1.Pod
	surging := 0
	for _, n := range plan.nodes {
		if !n.run {
			continue
		}
		updated, old, ok := splitUpdated(ds, plan.pods[n.Name], hash)
		switch {
		case !ok:
			surging++
		case old == nil:
			// Up to date, or empty: the manage step handles it.
		case updated == nil && !isAvailable(old, ds.Spec.MinReadySeconds, now):
			create = append(create, n.Name) // nothing to keep available
		case updated == nil:
			candidates = append(candidates, n.Name)
		case !isAvailable(updated, ds.Spec.MinReadySeconds, now):
			surging++
		default:
			del = append(del, old)
		}
	}
	room := min(max(0, surge-surging), len(candidates))
	return append(create, candidates[:room]...), del
}
