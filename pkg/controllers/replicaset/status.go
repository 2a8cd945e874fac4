package replicaset

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// computeStatus counts what rs's pods look like at now. manageErr, from
// a failed creation, becomes the ReplicaFailure condition.
func computeStatus(rs *appsv1.ReplicaSet, pods []*corev1.Pod, manageErr error, now time.Time) appsv1.ReplicaSetStatus {
	st := appsv1.ReplicaSetStatus{ObservedGeneration: rs.Generation}
	templateLabels := labels.Set(rs.Spec.Template.Labels).AsSelectorPreValidated()
	var terminating int32
	for _, p := range pods {
		if isTerminating(p) {
			terminating++
		}
		if !isActive(p) {
			continue
		}
		st.Replicas++
		if templateLabels.Matches(labels.Set(p.Labels)) {
			st.FullyLabeledReplicas++
		}
		if ready, _ := readySince(p); ready {
			st.ReadyReplicas++
		}
		if isAvailable(p, rs.Spec.MinReadySeconds, now) {
			st.AvailableReplicas++
		}
	}
	st.TerminatingReplicas = &terminating
	st.Conditions = failureCondition(rs.Status.Conditions, manageErr, now)
	return st
}

// failureCondition keeps, sets or clears ReplicaFailure as kube does:
// set while creating pods fails, removed once a reconcile succeeds.
func failureCondition(conds []appsv1.ReplicaSetCondition, manageErr error, now time.Time) []appsv1.ReplicaSetCondition {
	var out []appsv1.ReplicaSetCondition
	for _, c := range conds {
		if c.Type != appsv1.ReplicaSetReplicaFailure {
			out = append(out, c)
		} else if manageErr != nil {
			return conds // keep the first transition time
		}
	}
	if manageErr != nil {
		out = append(out, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now), Reason: "FailedCreate", Message: manageErr.Error(),
		})
	}
	return out
}

// writeStatus writes st if it differs from what rs shows. A conflict is
// returned, so the driver retries against a fresher cache. While the
// cache has not yet shown this controller's previous status write of rs,
// it writes nothing: that write's event enqueues rs again, and that pass
// writes what has changed since (see ownwrite).
func (c *Controller) writeStatus(ctx context.Context, key string, rs *appsv1.ReplicaSet, st appsv1.ReplicaSetStatus) error {
	if equality.Semantic.DeepEqual(rs.Status, st) {
		return nil
	}
	if c.statusWrites.Pending(key, rs.ResourceVersion) {
		c.log.Debug("status write waits for the previous one to reach the cache", "replicaset", key)
		return nil
	}
	rs = rs.DeepCopy()
	rs.Status = st
	written, err := c.client.AppsV1().ReplicaSets(rs.Namespace).UpdateStatus(ctx, rs, metav1.UpdateOptions{})
	if err == nil {
		c.statusWrites.Wrote(key, written.ResourceVersion)
	}
	return err
}
