package deployment

import (
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// newAndOld splits the ReplicaSets into the new one (running the current
// template) and all the old ones, and notes the revision on the working
// Deployment. An existing new ReplicaSet is returned as it will be once
// its annotations are brought up to date (see syncNew). When create is set
// and there is none, its creation is the pass's action.
func (pl *planner) newAndOld(create bool) (newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, creation *action) {
	newRS = findNew(pl.d, pl.rss)
	oldRSs, _ = findOld(pl.rss, newRS)
	revision := maxRevision(oldRSs) + 1
	switch {
	case newRS != nil:
		newRS = pl.syncNew(newRS, revision)
	case create:
		newRS, creation = pl.createNew(oldRSs, revision)
	}
	return newRS, oldRSs, creation
}

// syncNew brings the existing new ReplicaSet's annotations and
// minReadySeconds up to date, and notes its revision on the Deployment
// (and FoundNewReplicaSet, if Progressing is not there yet). It returns
// the ReplicaSet as it will be. The update, if one is needed, goes out
// before the pass's action, in the same pass: kube-controller-manager
// does both in one sync, and the step's arithmetic is made with the
// Deployment's status as it was before this pass.
func (pl *planner) syncNew(rs *appsv1.ReplicaSet, revision int64) *appsv1.ReplicaSet {
	cp := rs.DeepCopy()
	if setNewRSAnnotations(pl.d, cp, revision, true) || cp.Spec.MinReadySeconds != pl.d.Spec.MinReadySeconds {
		cp.Spec.MinReadySeconds = pl.d.Spec.MinReadySeconds
		pl.updateNew, pl.updateNote = cp, "updated the annotations of new replicaset "+cp.Name
		if revisionOf(cp) != revisionOf(rs) {
			pl.updateNote = fmt.Sprintf("replicaset %s runs the deployment's template again: gave it revision %d", cp.Name, revisionOf(cp))
		}
		rs = cp
	}
	setDeploymentRevision(pl.d, rs.Annotations[revisionAnnotation])
	if getCondition(pl.d.Status, appsv1.DeploymentProgressing) == nil && hasProgressDeadline(pl.d) {
		setCondition(&pl.d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			"FoundNewReplicaSet", fmt.Sprintf("Found new replica set %q", rs.Name), pl.now))
	}
	return rs
}

// createNew plans the ReplicaSet for the current template, and notes its
// revision and NewReplicaSetCreated on the Deployment.
func (pl *planner) createNew(oldRSs []*appsv1.ReplicaSet, revision int64) (*appsv1.ReplicaSet, *action) {
	rs := newReplicaSet(pl.d, oldRSs, revision)
	setDeploymentRevision(pl.d, strconv.FormatInt(revision, 10))
	if hasProgressDeadline(pl.d) {
		setCondition(&pl.d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			"NewReplicaSetCreated", fmt.Sprintf("Created new replica set %q", rs.Name), pl.now))
	}
	return rs, &action{Kind: actCreate, ReplicaSet: rs,
		Describe: fmt.Sprintf("created new replicaset %s with %d replicas", rs.Name, replicas(rs.Spec.Replicas))}
}

// newReplicaSet is the ReplicaSet for d's current template, named
// "<deployment>-<pod-template-hash>" as kube names it, and sized as the
// strategy allows right now next to oldRSs.
func newReplicaSet(d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet, revision int64) *appsv1.ReplicaSet {
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
	n := newRSReplicas(d, withNew(oldRSs, rs), rs)
	rs.Spec.Replicas = &n
	setNewRSAnnotations(d, rs, revision, false)
	return rs
}

// setDeploymentRevision sets d's revision annotation.
func setDeploymentRevision(d *appsv1.Deployment, revision string) {
	if d.Annotations[revisionAnnotation] == revision {
		return
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[revisionAnnotation] = revision
}

func withLabel(m map[string]string, k, v string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}
