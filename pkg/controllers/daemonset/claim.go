package daemonset

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// claimPods returns the pods ds controls after settling ownership as
// kube's ControllerRefManager does: an orphan pod matching the selector
// is adopted (its node is then read from it like any daemon pod's), an
// owned pod whose labels no longer match is released.
func (c *Controller) claimPods(ctx context.Context, ds *appsv1.DaemonSet) ([]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("daemonset %s/%s: invalid selector: %w", ds.Namespace, ds.Name, err)
	}
	return owner.Claim(ctx, c.log, c.podIndexer, ds, controllerKind, sel, owner.PodPatcher(c.client),
		owner.StillLive(ds, c.client.AppsV1().DaemonSets(ds.Namespace).Get))
}

// enqueueMatching enqueues every DaemonSet whose selector matches an
// orphan pod, so one of them can adopt it.
func (c *Controller) enqueueMatching(pod *corev1.Pod) {
	if len(pod.Labels) == 0 || pod.DeletionTimestamp != nil {
		return
	}
	all, err := c.dsLister.DaemonSets(pod.Namespace).List(labels.Everything())
	if err != nil {
		return
	}
	for _, ds := range all {
		sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		if sel.Matches(labels.Set(pod.Labels)) {
			c.driver.Enqueue(ds.Namespace + "/" + ds.Name)
		}
	}
}
