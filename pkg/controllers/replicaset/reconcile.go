package replicaset

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
)

// Reconcile brings the ReplicaSet named by key ("namespace/name") one step
// closer to spec.replicas running pods.
//
// It is level-based: it never asks "what happened?", only "what is wanted
// and what is there now?". It reads the latest ReplicaSet and its pods from
// the informer caches, takes the smallest step that closes the gap (adopt or
// release pods, create or delete the difference, write the status) and
// returns. Running it twice in a row, or after a crash, or for a ReplicaSet
// that no longer exists, is always safe: the second run finds less (or no)
// gap. An error makes the driver call it again later with backoff.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // a malformed key can never succeed
	}
	rs, err := c.rsLister.ReplicaSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.expect.Forget(key)
		c.statusWrites.Forget(key)
		c.log.Debug("replicaset gone, nothing to do", "replicaset", key)
		return nil
	}
	if err != nil {
		return err
	}
	selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		c.log.Warn("invalid selector, skipping", "replicaset", key, "err", err)
		return nil
	}
	// Decide before reading pods: an event arriving in between then only
	// makes us more careful, never less.
	synced := c.expect.Satisfied(key)
	pods, err := c.claimPods(ctx, rs, selector)
	if err != nil {
		return err
	}
	active := activePods(pods)
	desired := int(replicasOf(rs))

	action := "none"
	var manageErr error
	switch {
	case rs.DeletionTimestamp != nil:
		action = "none (replicaset is being deleted)"
	case !synced:
		adds, dels := c.expect.Pending(key)
		action = fmt.Sprintf("wait for %d creations and %d deletions to be observed", adds, dels)
	default:
		action, manageErr = c.manageReplicas(ctx, key, rs, active)
	}
	pass.Log(ctx, c.log, "ReplicaSet", rs, "reconciled replicaset", "replicaset", key,
		"desired", desired, "observed", len(active), "action", action)

	status := computeStatus(rs, pods, manageErr, c.clock.Now())
	if err := c.writeStatus(ctx, key, rs, status); err != nil {
		return err
	}
	if manageErr != nil {
		return manageErr
	}
	if rs.Spec.MinReadySeconds > 0 && status.ReadyReplicas != status.AvailableReplicas {
		// Availability changes with time alone: look again when the
		// youngest ready pod may have become available.
		c.driver.EnqueueAfter(key, secondsDuration(rs.Spec.MinReadySeconds))
	}
	return nil
}
