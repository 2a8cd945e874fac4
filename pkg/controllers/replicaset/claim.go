package replicaset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appslisters "k8s.io/client-go/listers/apps/v1"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

var rsKind = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")

// claimPods returns the pods rs controls after reconciling ownership: an
// orphan that matches the selector is adopted, an owned pod that no longer
// matches is released. Only the pods rs owns or could own are looked at,
// through the controller-UID index.
func (c *Controller) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, sel labels.Selector) ([]*corev1.Pod, error) {
	return owner.Claim(ctx, c.log, c.podIndexer, rs, rsKind, sel, owner.PodPatcher(c.client),
		owner.StillLive(rs, c.client.AppsV1().ReplicaSets(rs.Namespace).Get))
}

// matchingReplicaSets lists the ReplicaSets in pod's namespace whose
// selector matches pod's labels.
func matchingReplicaSets(lister appslisters.ReplicaSetLister, pod *corev1.Pod) []*appsv1.ReplicaSet {
	if len(pod.Labels) == 0 {
		return nil
	}
	all, err := lister.ReplicaSets(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*appsv1.ReplicaSet
	for _, rs := range all {
		sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		if sel.Matches(labels.Set(pod.Labels)) {
			out = append(out, rs)
		}
	}
	return out
}
