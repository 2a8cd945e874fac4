package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// execute takes the plan's action: the ReplicaSet writes, their events
// and log lines. When creating fails in a way the Deployment must show (a
// name collision, a refused create) it also returns the status to record
// instead of the plan's.
func (c *Controller) execute(ctx context.Context, d *appsv1.Deployment, p plan) (*appsv1.DeploymentStatus, error) {
	// latest holds what the server answered to this pass's writes, so a
	// ReplicaSet written twice is written the second time from the first
	// answer, not from the cache's older copy.
	latest := map[string]*appsv1.ReplicaSet{}
	if rs := p.UpdateNewRS; rs != nil {
		updated, err := c.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
		if err != nil {
			return nil, err
		}
		latest[rs.Name] = updated
	}
	switch p.Action.Kind {
	case actCreate:
		return c.createRS(ctx, d, p)
	case actScale:
		return nil, c.resizeAll(ctx, d, p.Action.Resizes, latest)
	case actCleanup:
		return nil, c.deleteAll(ctx, d, p.Action.Deletes)
	}
	return nil, nil
}

// createRS creates the new ReplicaSet. A name taken by a ReplicaSet that
// is not ours is a hash collision: status.collisionCount goes up, and the
// next pass plans the next name.
func (c *Controller) createRS(ctx context.Context, d *appsv1.Deployment, p plan) (*appsv1.DeploymentStatus, error) {
	rs := p.Action.ReplicaSet
	created, err := c.client.AppsV1().ReplicaSets(d.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return c.nameTaken(d, rs, p, err)
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
		c.recorder.Event(d, corev1.EventTypeWarning, "ReplicaSetCreateError", msg)
		if !hasProgressDeadline(d) {
			return nil, err
		}
		st := p.noted.DeepCopy()
		setCondition(st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, "ReplicaSetCreateError", msg, p.now))
		return st, err
	}
	n := replicas(created.Spec.Replicas)
	c.log.Info("created new replicaset for the current template", "deployment", d.Namespace+"/"+d.Name,
		"replicaset", created.Name, "replicas", n, "revision", revisionOf(created))
	if n > 0 {
		c.recorder.Eventf(d, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, n)
	}
	return nil, nil
}

// nameTaken handles a create that found the name in use.
func (c *Controller) nameTaken(d *appsv1.Deployment, rs *appsv1.ReplicaSet, p plan, err error) (*appsv1.DeploymentStatus, error) {
	got, getErr := c.rsLister.ReplicaSets(d.Namespace).Get(rs.Name)
	if getErr != nil {
		return nil, getErr
	}
	if owner.IsControlledBy(got, d.UID) && equalIgnoringHash(&d.Spec.Template, &got.Spec.Template) {
		// Ours, and the cache has it now though it had not when the pass
		// began: the retry plans from a world that shows it.
		return nil, fmt.Errorf("replicaset %s exists but was not in the cache yet: %w", rs.Name, err)
	}
	st := p.noted.DeepCopy()
	count := int32(0)
	if st.CollisionCount != nil {
		count = *st.CollisionCount
	}
	count++
	st.CollisionCount = &count
	c.log.Info("replicaset name collision, bumping collisionCount", "deployment", d.Namespace+"/"+d.Name, "name", rs.Name, "collisionCount", count)
	return st, err
}

// resizeAll applies the resizes in order, each from the latest copy of
// its ReplicaSet.
func (c *Controller) resizeAll(ctx context.Context, d *appsv1.Deployment, resizes []resize, latest map[string]*appsv1.ReplicaSet) error {
	for _, r := range resizes {
		rs := r.ReplicaSet
		if l, ok := latest[rs.Name]; ok {
			rs = l
		}
		updated, err := c.resizeRS(ctx, d, rs, r)
		if err != nil {
			return err
		}
		latest[rs.Name] = updated
	}
	return nil
}

// resizeRS writes one resize, recording a ScalingReplicaSet event if the
// size changed.
func (c *Controller) resizeRS(ctx context.Context, d *appsv1.Deployment, rs *appsv1.ReplicaSet, r resize) (*appsv1.ReplicaSet, error) {
	old := replicas(rs.Spec.Replicas)
	cp := rs.DeepCopy()
	setReplicasAnnotations(cp, r.Desired, r.MaxReplicas)
	cp.Spec.Replicas = &r.To
	updated, err := c.client.AppsV1().ReplicaSets(cp.Namespace).Update(ctx, cp, metav1.UpdateOptions{})
	if err != nil || old == r.To {
		return updated, err
	}
	direction := "up"
	if r.To < old {
		direction = "down"
	}
	c.recorder.Eventf(d, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", direction, rs.Name, old, r.To)
	c.log.Info("scaled replicaset", "deployment", d.Namespace+"/"+d.Name, "replicaset", rs.Name, "from", old, "to", r.To)
	return updated, nil
}

// deleteAll deletes old ReplicaSets beyond revisionHistoryLimit; one
// already gone is no error.
func (c *Controller) deleteAll(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) error {
	for _, rs := range rss {
		err := c.client.AppsV1().ReplicaSets(rs.Namespace).Delete(ctx, rs.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c.log.Info("deleted old replicaset beyond revisionHistoryLimit", "deployment", d.Namespace+"/"+d.Name,
			"replicaset", rs.Name, "revisionHistoryLimit", *d.Spec.RevisionHistoryLimit)
	}
	return nil
}
