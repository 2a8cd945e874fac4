package volumeprotection

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// Reconcile looks at the claim or volume the key names and, when it is
// being deleted, still has its protection finalizer and is no longer in
// use, removes the finalizer.
//
// It is level-based: it reads the caches as they are now, and removing a
// finalizer that is already gone, or looking at an object that no longer
// exists, does nothing. A claim still in use is looked at again when one
// of its pods changes.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	kind, rest := splitKey(key)
	switch kind {
	case "pvc":
		return c.reconcileClaim(ctx, rest)
	case "pv":
		return c.reconcileVolume(ctx, rest)
	}
	return nil
}

func (c *Controller) reconcileClaim(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pvc, err := c.pvcLister.PersistentVolumeClaims(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	at := indexOf(pvc.Finalizers, PVCFinalizer)
	if pvc.DeletionTimestamp == nil || at < 0 {
		return nil
	}
	user, err := c.claimUser(pvc)
	if err != nil {
		return err
	}
	if user != "" {
		c.log.Info("claim still in use, keeping its finalizer", "pvc", key, "pod", user)
		return nil
	}
	c.log.Info("claim no longer in use, removing its finalizer", "pvc", key)
	patch, err := removeFinalizerPatch(pvc.Finalizers, at)
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().PersistentVolumeClaims(ns).Patch(ctx, name, types.JSONPatchType, patch, metaPatchOptions)
	return ignoreGone(err)
}

// claimUser names a scheduled, unfinished pod that mounts the claim, if
// any.
func (c *Controller) claimUser(pvc *corev1.PersistentVolumeClaim) (string, error) {
	pods, err := c.podLister.Pods(pvc.Namespace).List(labels.Everything())
	if err != nil {
		return "", err
	}
	for _, pod := range pods {
		if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name {
				return pod.Name, nil
			}
		}
	}
	return "", nil
}

func (c *Controller) reconcileVolume(ctx context.Context, name string) error {
	pv, err := c.pvLister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	at := indexOf(pv.Finalizers, PVFinalizer)
	if pv.DeletionTimestamp == nil || at < 0 {
		return nil
	}
	if pv.Status.Phase == corev1.VolumeBound {
		c.log.Info("volume still bound, keeping its finalizer", "pv", name)
		return nil
	}
	c.log.Info("volume not bound, removing its finalizer", "pv", name)
	patch, err := removeFinalizerPatch(pv.Finalizers, at)
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().PersistentVolumes().Patch(ctx, name, types.JSONPatchType, patch, metaPatchOptions)
	return ignoreGone(err)
}

// removeFinalizerPatch is a JSON patch that removes finalizer number at,
// guarded by a test of its value, so a concurrent change of the list makes
// it fail (and the driver retry) instead of removing the wrong entry.
func removeFinalizerPatch(finalizers []string, at int) ([]byte, error) {
	path := fmt.Sprintf("/metadata/finalizers/%d", at)
	return json.Marshal([]map[string]any{
		{"op": "test", "path": path, "value": finalizers[at]},
		{"op": "remove", "path": path},
	})
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// ignoreGone: an object deleted meanwhile needs nothing more.
func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// metaPatchOptions are the options of every finalizer patch.
var metaPatchOptions = metav1.PatchOptions{}
