package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// recreate plans one Recreate step: scale every old ReplicaSet to zero;
// wait until none of their pods is left; then create (or grow) the new
// ReplicaSet to spec.replicas; once complete, clean up history.
func (pl *planner) recreate() plan {
	newRS, oldRSs, _ := pl.newAndOld(false)
	// The status comes after the step: creating the new ReplicaSet notes
	// its revision and condition on the Deployment, and the status counts it.
	act, newRS := pl.recreateStep(newRS, oldRSs)
	return pl.finish(act, pl.rolloutStatus(withNew(oldRSs, newRS), newRS), true)
}

// recreateStep picks the step, and returns the new ReplicaSet (the one it
// creates, if it does).
func (pl *planner) recreateStep(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) (action, *appsv1.ReplicaSet) {
	z := newResizer(pl.d)
	for _, rs := range active(oldRSs) {
		z.resize(rs, 0)
	}
	if act := z.action("scaled down old replicasets to 0"); act != nil {
		return *act, newRS
	}
	if oldPodsRunning(newRS, oldRSs, pl.pods) {
		return none("none (waiting for old pods to go)"), newRS
	}
	if newRS == nil {
		var act *action
		newRS, act = pl.createNew(oldRSs, maxRevision(oldRSs)+1)
		return *act, newRS
	}
	describe := "none (new replicaset at full size)"
	if _, scaled := z.resize(newRS, replicas(pl.d.Spec.Replicas)); scaled {
		describe = "scaled up new replicaset " + newRS.Name
	} else if len(z.out) > 0 {
		describe = "none (new replicaset at full size; updated its replica annotations)"
	}
	if act := z.action(describe); act != nil {
		return *act, newRS
	}
	if isComplete(pl.d, &pl.d.Status) {
		return pl.cleanup(oldRSs, describe), newRS
	}
	return none(describe), newRS
}

// oldPodsRunning: some old ReplicaSet still reports pods, or the cache
// still holds an old pod that has not finished.
func oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) bool {
	if sumStatus(oldRSs, statusReplicas) > 0 {
		return true
	}
	for _, rs := range oldRSs {
		if newRS != nil && newRS.UID == rs.UID {
			continue
		}
		for _, p := range pods[rs.UID] {
			if p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
				return true
			}
		}
	}
	return false
}
