package deployment

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// replicaSets splits d's ReplicaSets into the new one (running d's current
// template; created, with no replicas yet, if create is set and there is
// none) and all the old ones, and brings the revision annotations up to
// date. A ReplicaSet whose template matches again (a rollback) becomes the
// new one and gets the next revision.
func (c *Controller) replicaSets(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, create bool) (*appsv1.Deployment, *appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	newRS := findNew(d, rss)
	oldRSs, _ := findOld(rss, newRS)
	revision := maxRevision(oldRSs) + 1
	if newRS != nil {
		d, newRS, err := c.syncExistingNewRS(ctx, d, newRS, revision)
		return d, newRS, oldRSs, err
	}
	if !create {
		return d, nil, oldRSs, nil
	}
	d, newRS, err := c.createNewRS(ctx, d, oldRSs, revision)
	return d, newRS, oldRSs, err
}

// syncExistingNewRS updates the new ReplicaSet's annotations and
// minReadySeconds, and d's revision annotation and Progressing condition.
func (c *Controller) syncExistingNewRS(ctx context.Context, d *appsv1.Deployment, rs *appsv1.ReplicaSet, revision int64) (*appsv1.Deployment, *appsv1.ReplicaSet, error) {
	cp := rs.DeepCopy()
	changed := setNewRSAnnotations(d, cp, revision, true)
	if changed || cp.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		cp.Spec.MinReadySeconds = d.Spec.MinReadySeconds
		updated, err := c.client.AppsV1().ReplicaSets(cp.Namespace).Update(ctx, cp, metav1.UpdateOptions{})
		if err != nil {
			return d, rs, err
		}
		if revisionOf(rs) != revisionOf(updated) {
			c.log.Info("replicaset runs the deployment's template again: new revision",
				"deployment", d.Namespace+"/"+d.Name, "replicaset", rs.Name, "revision", revisionOf(updated))
		}
		rs = updated
	}
	needsUpdate := setDeploymentRevision(d, rs.Annotations[revisionAnnotation])
	if getCondition(d.Status, appsv1.DeploymentProgressing) == nil && hasProgressDeadline(d) {
		setCondition(&d.Status, c.condition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			"FoundNewReplicaSet", fmt.Sprintf("Found new replica set %q", rs.Name)))
		needsUpdate = true
	}
	if !needsUpdate {
		return d, rs, nil
	}
	d, err := c.writeStatus(ctx, d)
	return d, rs, err
}

// createNewRS creates the ReplicaSet for d's current template, sized as
// the strategy allows right now. A name taken by a ReplicaSet that is not
// ours is a hash collision: status.collisionCount goes up and the next
// reconcile tries the next name.
func (c *Controller) createNewRS(ctx context.Context, d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet, revision int64) (*appsv1.Deployment, *appsv1.ReplicaSet, error) {
	hash := podTemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	tmpl := d.Spec.Template.DeepCopy()
	tmpl.Labels = withLabel(tmpl.Labels, hashLabel, hash)
	sel := d.Spec.Selector.DeepCopy()
	sel.MatchLabels = withLabel(sel.MatchLabels, hashLabel, hash)
	zero := int32(0)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			Labels:          tmpl.Labels,
			OwnerReferences: []metav1.OwnerReference{owner.ControllerRef(d, deploymentKind)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: &zero, MinReadySeconds: d.Spec.MinReadySeconds, Selector: sel, Template: *tmpl},
	}
	n := newRSReplicas(d, append(append([]*appsv1.ReplicaSet(nil), oldRSs...), rs), rs)
	rs.Spec.Replicas = &n
	setNewRSAnnotations(d, rs, revision, false)

	created, err := c.client.AppsV1().ReplicaSets(d.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	existed := false
	switch {
	case apierrors.IsAlreadyExists(err):
		got, getErr := c.rsLister.ReplicaSets(d.Namespace).Get(rs.Name)
		if getErr != nil {
			return d, nil, getErr
		}
		if owner.IsControlledBy(got, d.UID) && equalIgnoringHash(&d.Spec.Template, &got.Spec.Template) {
			created, existed, err = got, true, nil
			break
		}
		// A stranger holds the name: try the next hash next time.
		count := int32(0)
		if d.Status.CollisionCount != nil {
			count = *d.Status.CollisionCount
		}
		count++
		d.Status.CollisionCount = &count
		c.log.Info("replicaset name collision, bumping collisionCount", "deployment", d.Namespace+"/"+d.Name, "name", rs.Name, "collisionCount", count)
		if _, werr := c.writeStatus(ctx, d); werr != nil {
			return d, nil, werr
		}
		return d, nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
		if hasProgressDeadline(d) {
			setCondition(&d.Status, c.condition(appsv1.DeploymentProgressing, corev1.ConditionFalse, "ReplicaSetCreateError", msg))
			_, _ = c.writeStatus(ctx, d)
		}
		c.recorder.Event(d, corev1.EventTypeWarning, "ReplicaSetCreateError", msg)
		return d, nil, err
	}
	if !existed {
		c.log.Info("created new replicaset for the current template", "deployment", d.Namespace+"/"+d.Name,
			"replicaset", created.Name, "replicas", n, "revision", revision)
		if n > 0 {
			c.recorder.Eventf(d, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, n)
		}
	}
	needsUpdate := setDeploymentRevision(d, strconv.FormatInt(revision, 10))
	if !existed && hasProgressDeadline(d) {
		setCondition(&d.Status, c.condition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			"NewReplicaSetCreated", fmt.Sprintf("Created new replica set %q", created.Name)))
		needsUpdate = true
	}
	if needsUpdate {
		if d, err = c.writeStatus(ctx, d); err != nil {
			return d, created, err
		}
	}
	return d, created, nil
}

// setDeploymentRevision sets d's revision annotation, reporting a change.
func setDeploymentRevision(d *appsv1.Deployment, revision string) bool {
	if d.Annotations[revisionAnnotation] == revision {
		return false
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[revisionAnnotation] = revision
	return true
}

func withLabel(m map[string]string, k, v string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}

// cleanupOldReplicaSets deletes the oldest old ReplicaSets beyond
// revisionHistoryLimit, but only those fully scaled down and settled.
func (c *Controller) cleanupOldReplicaSets(ctx context.Context, d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet) error {
	if d.Spec.RevisionHistoryLimit == nil {
		return nil
	}
	var alive []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	extra := len(alive) - int(*d.Spec.RevisionHistoryLimit)
	if extra <= 0 {
		return nil
	}
	sort.SliceStable(alive, func(i, j int) bool {
		ri, rj := revisionOf(alive[i]), revisionOf(alive[j])
		if ri == rj {
			return alive[i].CreationTimestamp.Before(&alive[j].CreationTimestamp)
		}
		return ri < rj
	})
	for _, rs := range alive[:extra] {
		if rs.Status.Replicas != 0 || replicas(rs.Spec.Replicas) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		err := c.client.AppsV1().ReplicaSets(rs.Namespace).Delete(ctx, rs.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c.log.Info("deleted old replicaset beyond revisionHistoryLimit", "deployment", d.Namespace+"/"+d.Name,
			"replicaset", rs.Name, "revisionHistoryLimit", *d.Spec.RevisionHistoryLimit)
	}
	return nil
}
