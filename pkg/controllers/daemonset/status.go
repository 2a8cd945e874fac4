package daemonset

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// computeStatus counts, per node, what ds's pods look like at now.
func computeStatus(ds *appsv1.DaemonSet, plan *nodePlan, hash string, now time.Time) appsv1.DaemonSetStatus {
	st := appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, CollisionCount: ds.Status.CollisionCount, Conditions: ds.Status.Conditions}
	for _, n := range plan.nodes {
		pods := plan.pods[n.Name]
		if !n.run {
			if len(pods) > 0 {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if len(pods) == 0 {
			continue
		}
		st.CurrentNumberScheduled++
		p := pods[0]
		if ready, _ := readySince(p); ready {
			st.NumberReady++
		}
		available := isAvailable(p, ds.Spec.MinReadySeconds, now)
		if available {
			st.NumberAvailable++
		}
		if isUpdated(p, ds, hash) {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	return st
}

// writeStatus writes st if it differs from what ds shows.
func (c *Controller) writeStatus(ctx context.Context, ds *appsv1.DaemonSet, st appsv1.DaemonSetStatus) error {
	if equality.Semantic.DeepEqual(ds.Status, st) {
		return nil
	}
	ds = ds.DeepCopy()
	ds.Status = st
	_, err := c.client.AppsV1().DaemonSets(ds.Namespace).UpdateStatus(ctx, ds, metav1.UpdateOptions{})
	return err
}
