package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

var deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment")

// claimReplicaSets returns the ReplicaSets d controls after reconciling
// ownership: a matching orphan is adopted, an owned one whose labels no
// longer match the selector is released.
func (c *Controller) claimReplicaSets(ctx context.Context, d *appsv1.Deployment, sel labels.Selector) ([]*appsv1.ReplicaSet, error) {
	owned, err := c.rsIndexer.ByIndex(owner.Index, string(d.UID))
	if err != nil {
		return nil, err
	}
	orphans, err := c.rsIndexer.ByIndex(owner.Index, owner.OrphanKey(d.Namespace))
	if err != nil {
		return nil, err
	}
	var claimed []*appsv1.ReplicaSet
	for _, obj := range owned {
		rs := obj.(*appsv1.ReplicaSet)
		if sel.Matches(labels.Set(rs.Labels)) || d.DeletionTimestamp != nil {
			claimed = append(claimed, rs)
			continue
		}
		if err := c.patchRS(ctx, rs, owner.ReleasePatch(d.UID, rs.UID)); err != nil {
			return nil, fmt.Errorf("releasing replicaset %s: %w", rs.Name, err)
		}
		c.log.Info("released replicaset that no longer matches the selector", "deployment", d.Namespace+"/"+d.Name, "replicaset", rs.Name)
	}
	if d.DeletionTimestamp != nil {
		return claimed, nil
	}
	checked := false
	for _, obj := range orphans {
		rs := obj.(*appsv1.ReplicaSet)
		if rs.DeletionTimestamp != nil || !sel.Matches(labels.Set(rs.Labels)) {
			continue
		}
		if !checked {
			// The cache may be stale: adopt only if d still exists with
			// this UID and is not being deleted.
			fresh, err := c.client.AppsV1().Deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, err
			}
			if err != nil || fresh.UID != d.UID || fresh.DeletionTimestamp != nil {
				return claimed, nil
			}
			checked = true
		}
		if err := c.patchRS(ctx, rs, owner.AdoptPatch(d, deploymentKind, rs.UID)); err != nil {
			return nil, fmt.Errorf("adopting replicaset %s: %w", rs.Name, err)
		}
		c.log.Info("adopted orphan replicaset matching the selector", "deployment", d.Namespace+"/"+d.Name, "replicaset", rs.Name)
		claimed = append(claimed, rs)
	}
	return claimed, nil
}

func (c *Controller) patchRS(ctx context.Context, rs *appsv1.ReplicaSet, patch []byte) error {
	_, err := c.client.AppsV1().ReplicaSets(rs.Namespace).Patch(ctx, rs.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// podsByReplicaSet maps each of rss to its pods (for Recreate, which must
// see every old pod gone).
func (c *Controller) podsByReplicaSet(rss []*appsv1.ReplicaSet) (map[types.UID][]*corev1.Pod, error) {
	out := map[types.UID][]*corev1.Pod{}
	for _, rs := range rss {
		objs, err := c.podIndexer.ByIndex(owner.Index, string(rs.UID))
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			out[rs.UID] = append(out[rs.UID], o.(*corev1.Pod))
		}
	}
	return out, nil
}
