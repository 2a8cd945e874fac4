package deployment

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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

func (c *Controller) condition(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason, msg string) appsv1.DeploymentCondition {
	now := metav1.NewTime(c.clock.Now())
	return appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: msg, LastUpdateTime: now, LastTransitionTime: now}
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

// computeStatus sums what the ReplicaSets report and sets Available: true
// once at least spec.replicas-maxUnavailable pods are available.
func (c *Controller) computeStatus(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
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
		setCondition(&st, c.condition(appsv1.DeploymentAvailable, corev1.ConditionTrue,
			"MinimumReplicasAvailable", "Deployment has minimum availability."))
	} else {
		setCondition(&st, c.condition(appsv1.DeploymentAvailable, corev1.ConditionFalse,
			"MinimumReplicasUnavailable", "Deployment does not have minimum availability."))
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

// rolloutStatus is computeStatus plus the Progressing condition: the
// rollout is complete, progressing, or past its deadline.
func (c *Controller) rolloutStatus(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	st := c.computeStatus(d, all, newRS)
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
		setCondition(&st, c.condition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			reasonNewRSAvailable, subject+" has successfully progressed."))
	case isProgressing(d, &st):
		cond := c.condition(appsv1.DeploymentProgressing, corev1.ConditionTrue, reasonRSUpdated, subject+" is progressing.")
		if cur != nil && cur.Status == corev1.ConditionTrue {
			cond.LastTransitionTime = cur.LastTransitionTime
		}
		// Replace even with the same reason: lastUpdateTime restarts the deadline.
		removeCondition(&st, appsv1.DeploymentProgressing)
		st.Conditions = append(st.Conditions, cond)
	case timedOut(d, &st, c.clock.Now()):
		setCondition(&st, c.condition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
			reasonTimedOut, subject+" has timed out progressing."))
	}
	return st
}

// syncRolloutStatus writes the rollout status if it changed, and makes
// sure the Deployment is looked at again when its deadline passes.
func (c *Controller) syncRolloutStatus(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	st := c.rolloutStatus(d, all, newRS)
	copyReplicaFailure(&st, all, newRS)
	if equality.Semantic.DeepEqual(d.Status, st) {
		c.requeueAtDeadline(d, st)
		return nil
	}
	d.Status = st
	_, err := c.writeStatus(ctx, d)
	return err
}

// requeueAtDeadline schedules a reconcile for when a rollout that is still
// progressing would exceed progressDeadlineSeconds: nothing else would
// wake the controller if nothing happens.
func (c *Controller) requeueAtDeadline(d *appsv1.Deployment, st appsv1.DeploymentStatus) {
	cond := getCondition(st, appsv1.DeploymentProgressing)
	if !hasProgressDeadline(d) || cond == nil || cond.Reason == reasonNewRSAvailable || cond.Reason == reasonTimedOut {
		return
	}
	deadline := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	after := deadline.Sub(c.clock.Now())
	key := d.Namespace + "/" + d.Name
	if after < time.Second {
		c.driver.Enqueue(key)
		return
	}
	c.driver.EnqueueAfter(key, after+time.Second)
}

// syncStatus writes the plain status (no Progressing change) if it changed.
func (c *Controller) syncStatus(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	st := c.computeStatus(d, all, newRS)
	if equality.Semantic.DeepEqual(d.Status, st) {
		return nil
	}
	d.Status = st
	_, err := c.writeStatus(ctx, d)
	return err
}

// writeStatus sends d's status (and its revision annotation, which the
// status subresource carries as kube-apiserver's does) and returns the
// stored Deployment. A conflict goes back to the driver for a retry.
func (c *Controller) writeStatus(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	updated, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	if err != nil {
		return d, err
	}
	return updated, nil
}

// checkPaused sets Progressing to Unknown/DeploymentPaused when d is
// paused, and DeploymentResumed when it no longer is.
func (c *Controller) checkPaused(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	if !hasProgressDeadline(d) {
		return d, nil
	}
	cur := getCondition(d.Status, appsv1.DeploymentProgressing)
	if cur != nil && cur.Reason == reasonTimedOut {
		return d, nil
	}
	pausedNoted := cur != nil && cur.Reason == reasonPaused
	switch {
	case d.Spec.Paused && !pausedNoted:
		setCondition(&d.Status, c.condition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, reasonPaused, "Deployment is paused"))
	case !d.Spec.Paused && pausedNoted:
		setCondition(&d.Status, c.condition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, reasonResumed, "Deployment is resumed"))
	default:
		return d, nil
	}
	return c.writeStatus(ctx, d)
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
