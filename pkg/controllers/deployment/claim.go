package deployment

import (
	"context"

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
	return owner.Claim(ctx, c.log, c.rsIndexer, d, deploymentKind, sel, c.patchRS,
		owner.StillLive(d, c.client.AppsV1().Deployments(d.Namespace).Get))
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
