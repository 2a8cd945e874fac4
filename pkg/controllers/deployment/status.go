package deployment

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Progressing condition's reasons, as kube-controller-manager writes them.
const (
	reasonNewRSAvailable = "NewReplicaSetAvailable"
	reasonRSUpdated      = "ReplicaSetUpdated"
	reasonTimedOut       = "ProgressDeadlineExceeded"
	reasonPaused         = "DeploymentPaused"
	reasonResumed        = "DeploymentResumed"
)

// newCondition stamps a condition with now. The time is passed in, never
// read here, so that a whole pass is planned against one instant.
func newCondition(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason, msg string, now time.Time) appsv1.DeploymentCondition {
	ts := metav1.NewTime(now)
	return appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: msg, LastUpdateTime: ts, LastTransitionTime: ts}
}

func getCondition(st appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition puts cond into st. Same status and reason: nothing changes
// (not even lastUpdateTime). Same status, new reason: the transition time
// is kept. The condition moves to the end of the list, as in kube.
func setCondition(st *appsv1.DeploymentStatus, cond appsv1.DeploymentCondition) {
	cur := getCondition(*st, cond.Type)
	if cur != nil && cur.Status == cond.Status && cur.Reason == cond.Reason {
		return
	}
	if cur != nil && cur.Status == cond.Status {
		cond.LastTransitionTime = cur.LastTransitionTime
	}
	removeCondition(st, cond.Type)
	st.Conditions = append(st.Conditions, cond)
}

func removeCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	var out []appsv1.DeploymentCondition
	for _, c := range st.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	st.Conditions = out
}

// computeStatusAt sums what the ReplicaSets report and sets Available:
// true once at least spec.replicas-maxUnavailable pods are available.
func computeStatusAt(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, now time.Time) appsv1.DeploymentStatus {
	available := sumStatus(all, statusAvailable)
	st := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            sumStatus(all, statusReplicas),
		UpdatedReplicas:     sumStatus([]*appsv1.ReplicaSet{newRS}, statusReplicas),
		ReadyReplicas:       sumStatus(all, statusReady),
		AvailableReplicas:   available,
		UnavailableReplicas: max(sumSpec(all)-available, 0),
		TerminatingReplicas: sumTerminating(all),
		CollisionCount:      d.Status.CollisionCount,
		Conditions:          append([]appsv1.DeploymentCondition(nil), d.Status.Conditions...),
	}
	if available >= replicas(d.Spec.Replicas)-maxUnavailable(d) {
		setCondition(&st, newCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue,
			"MinimumReplicasAvailable", "Deployment has minimum availability.", now))
	} else {
		setCondition(&st, newCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse,
			"MinimumReplicasUnavailable", "Deployment does not have minimum availability.", now))
	}
	return st
}

// isComplete: every replica runs the new template and is available, for
// the generation we are looking at.
func isComplete(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	want := replicas(d.Spec.Replicas)
	return st.UpdatedReplicas == want && st.Replicas == want && st.AvailableReplicas == want && st.ObservedGeneration >= d.Generation
}

// isProgressing: the new status is a step forward from the recorded one.
func isProgressing(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// timedOut: no progress since the Progressing condition was last updated,
// for longer than progressDeadlineSeconds.
func timedOut(d *appsv1.Deployment, st *appsv1.DeploymentStatus, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	cond := getCondition(*st, appsv1.DeploymentProgressing)
	if cond == nil || cond.Reason == reasonNewRSAvailable {
		return false
	}
	if cond.Reason == reasonTimedOut {
		return true
	}
	deadline := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return deadline.Before(now)
}

// rolloutStatusAt is computeStatusAt plus the Progressing condition: the
// rollout is complete, progressing, or past its deadline.
func rolloutStatusAt(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, now time.Time) appsv1.DeploymentStatus {
	st := computeStatusAt(d, all, newRS, now)
	if !hasProgressDeadline(d) {
		removeCondition(&st, appsv1.DeploymentProgressing)
		return st
	}
	cur := getCondition(d.Status, appsv1.DeploymentProgressing)
	if st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == reasonNewRSAvailable {
		return st // complete before, complete still
	}
	subject := fmt.Sprintf("Deployment %q", d.Name)
	if newRS != nil {
		subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
	}
	switch {
	case isComplete(d, &st):
		setCondition(&st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			reasonNewRSAvailable, subject+" has successfully progressed.", now))
	case isProgressing(d, &st):
		cond := newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonRSUpdated, subject+" is progressing.", now)
		if cur != nil && cur.Status == corev1.ConditionTrue {
			cond.LastTransitionTime = cur.LastTransitionTime
		}
		// Replace even with the same reason: lastUpdateTime restarts the deadline.
		removeCondition(&st, appsv1.DeploymentProgressing)
		st.Conditions = append(st.Conditions, cond)
	case timedOut(d, &st, now):
		setCondition(&st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
			reasonTimedOut, subject+" has timed out progressing.", now))
	}
	return st
}

// The Controller's forms read its clock; a pass reads the clock once and
// hands the time to the plan instead.
func (c *Controller) computeStatus(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	return computeStatusAt(d, all, newRS, c.clock.Now())
}

func (c *Controller) rolloutStatus(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	return rolloutStatusAt(d, all, newRS, c.clock.Now())
}

// deadlineRequeue says when to look at a rollout that is still
// progressing again, should nothing else happen: just after its progress
// deadline passes, or at once if that is less than a second away.
func deadlineRequeue(d *appsv1.Deployment, st appsv1.DeploymentStatus, now time.Time) (bool, time.Duration) {
	cond := getCondition(st, appsv1.DeploymentProgressing)
	if !hasProgressDeadline(d) || cond == nil || cond.Reason == reasonNewRSAvailable || cond.Reason == reasonTimedOut {
		return false, 0
	}
	deadline := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	after := deadline.Sub(now)
	if after < time.Second {
		return true, 0
	}
	return true, after + time.Second
}

// notePaused sets Progressing to Unknown/DeploymentPaused on d's status
// when d is paused, and DeploymentResumed when it no longer is.
func notePaused(d *appsv1.Deployment, now time.Time) {
	if !hasProgressDeadline(d) {
		return
	}
	cur := getCondition(d.Status, appsv1.DeploymentProgressing)
	if cur != nil && cur.Reason == reasonTimedOut {
		return
	}
	pausedNoted := cur != nil && cur.Reason == reasonPaused
	switch {
	case d.Spec.Paused && !pausedNoted:
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, reasonPaused, "Deployment is paused", now))
	case !d.Spec.Paused && pausedNoted:
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, reasonResumed, "Deployment is resumed", now))
	}
}

// copyReplicaFailure mirrors a ReplicaSet's ReplicaFailure condition (pods
// cannot be created) on the Deployment, the new ReplicaSet's first.
func copyReplicaFailure(st *appsv1.DeploymentStatus, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) {
	for _, rs := range append([]*appsv1.ReplicaSet{newRS}, all...) {
		if rs == nil {
			continue
		}
		for _, rc := range rs.Status.Conditions {
			if rc.Type == appsv1.ReplicaSetReplicaFailure {
				setCondition(st, appsv1.DeploymentCondition{
					Type: appsv1.DeploymentReplicaFailure, Status: rc.Status, Reason: rc.Reason, Message: rc.Message,
					LastUpdateTime: rc.LastTransitionTime, LastTransitionTime: rc.LastTransitionTime,
				})
				return
			}
		}
	}
	removeCondition(st, appsv1.DeploymentReplicaFailure)
}
