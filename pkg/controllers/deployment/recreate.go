package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// rolloutRecreate takes one Recreate step: scale every old ReplicaSet to
// zero; wait until none of their pods is left; then create (or grow) the
// new ReplicaSet to spec.replicas.
func (c *Controller) rolloutRecreate(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (string, error) {
	d, newRS, oldRSs, err := c.replicaSets(ctx, d, rss, false)
	if err != nil {
		return "sync new replicaset", err
	}
	all := append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	scaled := false
	for _, rs := range active(oldRSs) {
		_, s, err := c.scaleRS(ctx, d, rs, 0)
		if err != nil {
			return "scale down old replicasets", err
		}
		scaled = scaled || s
	}
	if scaled {
		return "scaled down old replicasets to 0", c.syncRolloutStatus(ctx, d, all, newRS)
	}
	running, err := c.oldPodsRunning(newRS, oldRSs)
	if err != nil {
		return "list old pods", err
	}
	if running {
		return "none (waiting for old pods to go)", c.syncRolloutStatus(ctx, d, all, newRS)
	}
	if newRS == nil {
		if d, newRS, oldRSs, err = c.replicaSets(ctx, d, rss, true); err != nil {
			return "create new replicaset", err
		}
		all = append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	}
	action := "none (new replicaset at full size)"
	if _, s, err := c.scaleRS(ctx, d, newRS, replicas(d.Spec.Replicas)); err != nil {
		return "scale up new replicaset", err
	} else if s {
		action = "scaled up new replicaset " + newRS.Name
	}
	if isComplete(d, &d.Status) {
		if err := c.cleanupOldReplicaSets(ctx, d, oldRSs); err != nil {
			return action, err
		}
	}
	return action, c.syncRolloutStatus(ctx, d, all, newRS)
}

// oldPodsRunning: some old ReplicaSet still reports pods, or the cache
// still holds an old pod that has not finished.
func (c *Controller) oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) (bool, error) {
	if sumStatus(oldRSs, statusReplicas) > 0 {
		return true, nil
	}
	pods, err := c.podsByReplicaSet(oldRSs)
	if err != nil {
		return false, err
	}
	for uid, list := range pods {
		if newRS != nil && newRS.UID == uid {
			continue
		}
		for _, p := range list {
			if p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
				return true, nil
			}
		}
	}
	return false, nil
}
