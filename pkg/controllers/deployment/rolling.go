package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// rolloutRolling takes one RollingUpdate step: first grow the new
// ReplicaSet as far as maxSurge allows; if it could not grow, shrink old
// ones as far as maxUnavailable allows; once complete, clean up history.
// It returns a word for the log saying which step it took.
func (c *Controller) rolloutRolling(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (string, error) {
	existed := findNew(d, rss) != nil
	d, newRS, oldRSs, err := c.replicaSets(ctx, d, rss, true)
	if err != nil {
		return "create new replicaset", err
	}
	all := append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	if !existed {
		return fmt.Sprintf("created new replicaset %s with %d replicas", newRS.Name, replicas(newRS.Spec.Replicas)),
			c.syncRolloutStatus(ctx, d, all, newRS)
	}
	if up, err := c.scaleUpNew(ctx, d, all, newRS); err != nil || up {
		return "scaled up new replicaset " + newRS.Name, firstErr(err, c.syncRolloutStatus(ctx, d, all, newRS))
	}
	down, err := c.scaleDownOld(ctx, d, all, active(oldRSs), newRS)
	if err != nil {
		return "scale down old replicasets", err
	}
	if down > 0 {
		return "scaled down old replicasets", c.syncRolloutStatus(ctx, d, all, newRS)
	}
	action := "none (waiting for new pods to become available before replacing more)"
	if sumSpec(oldRSs) == 0 {
		action = "none (all replicas on the new template; waiting for them to become available)"
	}
	if isComplete(d, &d.Status) {
		action = "none (rollout complete)"
		if err := c.cleanupOldReplicaSets(ctx, d, oldRSs); err != nil {
			return action, err
		}
	}
	return action, c.syncRolloutStatus(ctx, d, all, newRS)
}

// scaleUpNew moves the new ReplicaSet towards spec.replicas within
// maxSurge (or straight down to it, if it has more).
func (c *Controller) scaleUpNew(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, error) {
	want := replicas(d.Spec.Replicas)
	cur := replicas(newRS.Spec.Replicas)
	if cur == want {
		return false, nil
	}
	target := want
	if cur < want {
		target = newRSReplicas(d, all, newRS)
	}
	_, scaled, err := c.scaleRS(ctx, d, newRS, target)
	return scaled, err
}

// scaleDownOld shrinks old ReplicaSets without going below
// spec.replicas-maxUnavailable available pods: first the replicas that are
// not available anyway (they cost nothing), then available ones, oldest
// ReplicaSet first. It returns how many replicas it removed.
func (c *Controller) scaleDownOld(ctx context.Context, d *appsv1.Deployment, all, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	if sumSpec(oldRSs) == 0 {
		return 0, nil
	}
	room := oldScaleDownRoom(d, all, newRS)
	if room <= 0 {
		return 0, nil
	}
	oldRSs, cleaned, err := c.dropUnavailable(ctx, d, oldRSs, room)
	if err != nil {
		return cleaned, err
	}
	all = append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	down, err := c.dropAvailable(ctx, d, all, oldRSs)
	return cleaned + down, err
}

// dropUnavailable removes up to limit old replicas that are not available.
func (c *Controller) dropUnavailable(ctx context.Context, d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet, limit int32) ([]*appsv1.ReplicaSet, int32, error) {
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
		updated, _, err := c.scaleRS(ctx, d, rs, cur-n)
		if err != nil {
			return oldRSs, total, err
		}
		total += n
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

// dropAvailable removes old replicas while more than
// spec.replicas-maxUnavailable pods are available.
func (c *Controller) dropAvailable(ctx context.Context, d *appsv1.Deployment, all, oldRSs []*appsv1.ReplicaSet) (int32, error) {
	minAvailable := replicas(d.Spec.Replicas) - maxUnavailable(d)
	avail := sumStatus(all, statusAvailable)
	if avail <= minAvailable {
		return 0, nil
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
		if _, _, err := c.scaleRS(ctx, d, rs, cur-n); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
