package statefulset

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// computeStatus counts the set's pods at now as kube does: replicas are
// the pods the server has, ready ones are Running and Ready, current and
// updated ones (not being deleted) carry the current or update revision.
// Pods just deleted for the rolling update are no longer current.
func computeStatus(s *appsv1.StatefulSet, pods []*corev1.Pod, h *history, r result, now time.Time) appsv1.StatefulSetStatus {
	collisions := h.collisions
	st := appsv1.StatefulSetStatus{
		ObservedGeneration: s.Generation,
		CurrentRevision:    h.current.Name,
		UpdateRevision:     h.update.Name,
		CollisionCount:     &collisions,
	}
	for _, p := range pods {
		if isCreated(p) {
			st.Replicas++
		}
		if isRunningAndReady(p) {
			st.ReadyReplicas++
			if isAvailable(p, s.Spec.MinReadySeconds, now) {
				st.AvailableReplicas++
			}
		}
		if isCreated(p) && !isTerminating(p) {
			if p.Labels[revisionLabel] == st.CurrentRevision {
				st.CurrentReplicas++
			}
			if p.Labels[revisionLabel] == st.UpdateRevision {
				st.UpdatedReplicas++
			}
		}
	}
	st.CurrentReplicas -= r.deletedForUpdate
	completeRollingUpdate(s, &st)
	return st
}

// completeRollingUpdate makes the update revision current once every
// replica is updated and ready. Only RollingUpdate does this: under
// OnDelete kube leaves currentRevision where it was.
func completeRollingUpdate(s *appsv1.StatefulSet, st *appsv1.StatefulSetStatus) {
	n := int32(replicasOf(s))
	if s.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		st.UpdatedReplicas == n && st.ReadyReplicas == n && st.Replicas == n {
		st.CurrentReplicas = st.UpdatedReplicas
		st.CurrentRevision = st.UpdateRevision
	}
}

// writeStatus writes st if it differs from what s shows.
func (c *Controller) writeStatus(ctx context.Context, s *appsv1.StatefulSet, st appsv1.StatefulSetStatus) error {
	if equality.Semantic.DeepEqual(s.Status, st) {
		return nil
	}
	s = s.DeepCopy()
	s.Status = st
	_, err := c.client.AppsV1().StatefulSets(s.Namespace).UpdateStatus(ctx, s, metav1.UpdateOptions{})
	return err
}
