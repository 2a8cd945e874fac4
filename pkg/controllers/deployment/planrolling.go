package deployment

import appsv1 "k8s.io/api/apps/v1"

// rolling plans one RollingUpdate step: create the new ReplicaSet; else
// grow it as far as maxSurge allows; if it could not grow, shrink old ones
// as far as maxUnavailable allows; once complete, clean up history.
func (pl *planner) rolling() plan {
	newRS, oldRSs, creation := pl.newAndOld(true)
	all := withNew(oldRSs, newRS)
	st := pl.rolloutStatus(all, newRS)
	if creation != nil {
		return pl.finish(*creation, st, true)
	}
	return pl.finish(pl.rollingStep(newRS, oldRSs, all), st, true)
}

func (pl *planner) rollingStep(newRS *appsv1.ReplicaSet, oldRSs, all []*appsv1.ReplicaSet) action {
	z := newResizer(pl.d)
	if z.scaleUpNew(all, newRS) {
		return *z.action("scaled up new replicaset " + newRS.Name)
	}
	if z.scaleDownOld(all, active(oldRSs), newRS) > 0 {
		return *z.action("scaled down old replicasets")
	}
	describe := "none (waiting for new pods to become available before replacing more)"
	if sumSpec(oldRSs) == 0 {
		describe = "none (all replicas on the new template; waiting for them to become available)"
	}
	complete := isComplete(pl.d, &pl.d.Status)
	if complete {
		describe = "none (rollout complete)"
	}
	// Only the new ReplicaSet's replica annotations changed (maxSurge
	// did): write them; history waits for a pass with nothing to resize.
	if act := z.action(describe); act != nil {
		return *act
	}
	if complete {
		return pl.cleanup(oldRSs, describe)
	}
	return none(describe)
}

// scaleUpNew moves the new ReplicaSet towards spec.replicas within
// maxSurge (or straight down to it, if it has more). It reports whether
// the size changes.
func (z *resizer) scaleUpNew(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) bool {
	want := replicas(z.d.Spec.Replicas)
	cur := replicas(newRS.Spec.Replicas)
	if cur == want {
		return false
	}
	target := want
	if cur < want {
		target = newRSReplicas(z.d, all, newRS)
	}
	_, scaled := z.resize(newRS, target)
	return scaled
}

// scaleDownOld shrinks old ReplicaSets without going below
// spec.replicas-maxUnavailable available pods: first the replicas that are
// not available anyway (they cost nothing), then available ones, oldest
// ReplicaSet first. It returns how many replicas it removes.
func (z *resizer) scaleDownOld(all, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) int32 {
	if sumSpec(oldRSs) == 0 {
		return 0
	}
	room := oldScaleDownRoom(z.d, all, newRS)
	if room <= 0 {
		return 0
	}
	oldRSs, cleaned := z.dropUnavailable(oldRSs, room)
	return cleaned + z.dropAvailable(withNew(oldRSs, newRS), oldRSs)
}

// dropUnavailable removes up to limit old replicas that are not
// available. It returns the old ReplicaSets as they will be.
func (z *resizer) dropUnavailable(oldRSs []*appsv1.ReplicaSet, limit int32) ([]*appsv1.ReplicaSet, int32) {
	oldRSs = append([]*appsv1.ReplicaSet(nil), oldRSs...)
	byCreation(oldRSs)
	var total int32
	for i, rs := range oldRSs {
		if total >= limit {
			break
		}
		cur := replicas(rs.Spec.Replicas)
		if cur == 0 || cur == rs.Status.AvailableReplicas {
			continue
		}
		n := min(limit-total, cur-rs.Status.AvailableReplicas)
		oldRSs[i], _ = z.resize(rs, cur-n)
		total += n
	}
	return oldRSs, total
}

// dropAvailable removes old replicas while more than
// spec.replicas-maxUnavailable pods are available.
func (z *resizer) dropAvailable(all, oldRSs []*appsv1.ReplicaSet) int32 {
	minAvailable := replicas(z.d.Spec.Replicas) - maxUnavailable(z.d)
	avail := sumStatus(all, statusAvailable)
	if avail <= minAvailable {
		return 0
	}
	limit := avail - minAvailable
	byCreation(oldRSs)
	var total int32
	for _, rs := range oldRSs {
		if total >= limit {
			break
		}
		cur := replicas(rs.Spec.Replicas)
		if cur == 0 {
			continue
		}
		n := min(cur, limit-total)
		z.resize(rs, cur-n)
		total += n
	}
	return total
}
