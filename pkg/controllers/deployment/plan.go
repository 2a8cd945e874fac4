package deployment

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
)

// A pass of the Deployment controller is split in two: planFor decides,
// from what was read, the one action to take (after bringing the new
// ReplicaSet's annotations up to date, if they are stale) and the status
// to record; Reconcile then takes the action and writes the status, once.
// Deciding is pure
// (no client, no clock, no cache) so that all of the rollout arithmetic can
// be tested as a table, and so that the pass reads like the lesson: observe,
// decide, act once, record once.

// passInput is everything a plan is made from.
type passInput struct {
	// Deployment is the Deployment as read; the plan never changes it.
	Deployment *appsv1.Deployment
	// ReplicaSets are those the Deployment controls, after claiming.
	ReplicaSets []*appsv1.ReplicaSet
	// Pods holds each ReplicaSet's pods by its UID. Only Recreate looks:
	// it waits until every old pod is gone.
	Pods map[types.UID][]*corev1.Pod
	// Now stamps new conditions and measures the progress deadline.
	Now time.Time
}

// actionKind names the one kind of step a pass takes; it also says, in the
// log, what a failed pass was trying to do.
type actionKind string

const (
	actNone    actionKind = "none"
	actCreate  actionKind = "create new replicaset"
	actScale   actionKind = "scale replicasets"
	actCleanup actionKind = "clean up old replicasets"
)

// action is the one step a pass takes.
type action struct {
	Kind actionKind
	// ReplicaSet is the ReplicaSet to create (actCreate): template, hash,
	// owner and annotations filled in.
	ReplicaSet *appsv1.ReplicaSet
	// Resizes are applied in order (actScale). One step may resize several
	// ReplicaSets, and the same one twice, as kube-controller-manager's
	// does: proportional scaling and a rolling scale-down share their
	// arithmetic across the ReplicaSets, so spreading them over several
	// passes would change the numbers.
	Resizes []resize
	// Deletes are old ReplicaSets beyond revisionHistoryLimit (actCleanup).
	Deletes []*appsv1.ReplicaSet
	// Describe says what the pass does, for the log line's "action".
	Describe string
}

// resize sets a ReplicaSet's spec.replicas, and the annotations kube keeps
// on it for proportional scaling: the Deployment size it was scaled for and
// the most pods the rollout allowed then.
type resize struct {
	ReplicaSet           *appsv1.ReplicaSet // as read at the start of the pass
	From, To             int32
	Desired, MaxReplicas int32
}

// plan is the outcome of deciding: the action, then what to record.
type plan struct {
	// UpdateNewRS, if set, is written just before the action: the existing
	// new ReplicaSet with the Deployment's annotations, its revision (a
	// rollback gives it the next one) and minReadySeconds. It is
	// housekeeping that comes with whatever step the pass takes.
	UpdateNewRS *appsv1.ReplicaSet
	Action      action
	// Status is the Deployment's status once the action is taken.
	Status appsv1.DeploymentStatus
	// Revision is the Deployment's deployment.kubernetes.io/revision
	// annotation; "" leaves it as it is. The status subresource carries it
	// (kube-apiserver's does too), so it goes out with the status.
	Revision string
	// Requeue asks for another look after RequeueAfter (0: at once): a
	// rollout that is not moving only times out if someone looks.
	Requeue      bool
	RequeueAfter time.Duration

	// noted is the stored status plus the notes taken before the action
	// (paused, resumed), and now the time of the plan: what a failed create
	// records instead of Status.
	noted appsv1.DeploymentStatus
	now   time.Time
}

// changes reports whether p records anything d does not already say.
func (p plan) changes(d *appsv1.Deployment) bool {
	return !equality.Semantic.DeepEqual(d.Status, p.Status) ||
		(p.Revision != "" && d.Annotations[revisionAnnotation] != p.Revision)
}

// planFor decides one pass for in.Deployment. The checks come in kube's
// order: a Deployment being deleted only gets its status; a paused one, or
// one whose size changed, only scales; otherwise its strategy takes a step.
func planFor(in passInput) plan {
	pl := &planner{d: in.Deployment.DeepCopy(), rss: in.ReplicaSets, pods: in.Pods, now: in.Now}
	if pl.d.DeletionTimestamp != nil {
		newRS := findNew(pl.d, pl.rss)
		_, withReplicas := findOld(pl.rss, newRS)
		st := computeStatusAt(pl.d, append(withReplicas, newRS), newRS, pl.now)
		return pl.finish(none("status only (deployment is being deleted)"), st, false)
	}
	notePaused(pl.d, pl.now)
	noted := *pl.d.Status.DeepCopy()
	var p plan
	switch {
	case pl.d.Spec.Paused:
		p = pl.scaleOnly("paused: scale only")
	case isScalingEvent(pl.d, pl.rss):
		p = pl.scaleOnly("scaled replicasets proportionally")
	case pl.d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType:
		p = pl.recreate()
	default:
		p = pl.rolling()
	}
	p.noted = noted
	return p
}

// planner holds one pass's working copy of the Deployment: what the plan
// notes on the way (revision, conditions) goes on the copy, never on the
// object from the cache.
type planner struct {
	d    *appsv1.Deployment
	rss  []*appsv1.ReplicaSet
	pods map[types.UID][]*corev1.Pod
	now  time.Time
	// updateNew is the new ReplicaSet's update, if it needs one, and
	// updateNote what the log says of it.
	updateNew  *appsv1.ReplicaSet
	updateNote string
}

// finish turns the chosen action and the status into the plan. A rollout
// whose status did not change gets a requeue at its progress deadline.
func (pl *planner) finish(act action, st appsv1.DeploymentStatus, watchDeadline bool) plan {
	if pl.updateNew != nil {
		act.Describe = pl.updateNote + "; " + act.Describe
	}
	p := plan{UpdateNewRS: pl.updateNew, Action: act, Status: st, Revision: pl.d.Annotations[revisionAnnotation], now: pl.now}
	if watchDeadline && equality.Semantic.DeepEqual(pl.d.Status, st) {
		p.Requeue, p.RequeueAfter = deadlineRequeue(pl.d, st, pl.now)
	}
	return p
}

// rolloutStatus is the status a rollout step records (Progressing, and
// the ReplicaFailure of a ReplicaSet that cannot create pods).
func (pl *planner) rolloutStatus(all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	st := rolloutStatusAt(pl.d, all, newRS, pl.now)
	copyReplicaFailure(&st, all, newRS)
	return st
}

func none(describe string) action { return action{Kind: actNone, Describe: describe} }

// withNew is oldRSs and newRS (which may be nil) in a new slice.
func withNew(oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	return append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
}
