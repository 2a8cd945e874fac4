package replicaset

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	appslisters "k8s.io/client-go/listers/apps/v1"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

var rsKind = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")

// claimPods returns the pods rs controls after reconciling ownership: an
// orphan that matches the selector is adopted, an owned pod that no longer
// matches is released. Only the pods rs owns or could own are looked at,
// through the controller-UID index.
func (c *Controller) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, sel labels.Selector) ([]*corev1.Pod, error) {
	owned, err := c.podIndexer.ByIndex(owner.Index, string(rs.UID))
	if err != nil {
		return nil, err
	}
	orphans, err := c.podIndexer.ByIndex(owner.Index, owner.OrphanKey(rs.Namespace))
	if err != nil {
		return nil, err
	}
	var claimed []*corev1.Pod
	for _, obj := range owned {
		pod := obj.(*corev1.Pod)
		if sel.Matches(labels.Set(pod.Labels)) || rs.DeletionTimestamp != nil {
			claimed = append(claimed, pod)
			continue
		}
		if err := c.patchPod(ctx, pod, owner.ReleasePatch(rs.UID, pod.UID)); err != nil {
			return nil, fmt.Errorf("releasing pod %s: %w", pod.Name, err)
		}
		c.log.Info("released pod that no longer matches the selector", "replicaset", rs.Namespace+"/"+rs.Name, "pod", pod.Name)
	}
	if rs.DeletionTimestamp != nil {
		return claimed, nil
	}
	canAdopt := true
	for _, obj := range orphans {
		pod := obj.(*corev1.Pod)
		if pod.DeletionTimestamp != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if canAdopt {
			// The cache may be stale: adopt only if rs still exists
			// with this UID and is not being deleted.
			if canAdopt, err = c.stillLive(ctx, rs); err != nil {
				return nil, err
			}
			if !canAdopt {
				break
			}
		}
		if err := c.patchPod(ctx, pod, owner.AdoptPatch(rs, rsKind, pod.UID)); err != nil {
			return nil, fmt.Errorf("adopting pod %s: %w", pod.Name, err)
		}
		c.log.Info("adopted orphan pod matching the selector", "replicaset", rs.Namespace+"/"+rs.Name, "pod", pod.Name)
		claimed = append(claimed, pod)
	}
	return claimed, nil
}

func (c *Controller) stillLive(ctx context.Context, rs *appsv1.ReplicaSet) (bool, error) {
	fresh, err := c.client.AppsV1().ReplicaSets(rs.Namespace).Get(ctx, rs.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return fresh.UID == rs.UID && fresh.DeletionTimestamp == nil, nil
}

// patchPod sends an ownership patch; a pod that is already gone is fine.
func (c *Controller) patchPod(ctx context.Context, pod *corev1.Pod, patch []byte) error {
	_, err := c.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
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
