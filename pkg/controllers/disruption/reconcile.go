package disruption

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
)

// DeletionTimeout is how long a pod an eviction was allowed to remove
// stays out of the healthy count before the controller assumes the delete
// will not come (kube's value).
const DeletionTimeout = 2 * time.Minute

// Reconcile recomputes the status of the budget named by key
// ("namespace/name") from what is there now: the pods it selects, their
// readiness, and the replicas their controllers want.
//
// It is level-based: it never asks what happened, only what is there; it
// writes the status only when a number or the condition differs. Running
// it again, or for a budget that is gone, is always safe. When the
// expected count cannot be worked out, the budget is set to allow no
// disruption (condition SyncFailed) and the error makes the driver retry.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pdb, err := c.pdbLister.PodDisruptionBudgets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.log.Debug("budget gone, nothing to do", "pdb", key)
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.sync(ctx, key, pdb); err != nil {
		c.log.Warn("budget sync failed, allowing no disruption", "pdb", key, "err", err)
		if werr := c.writeStatus(ctx, pdb, failSafe(pdb, err, c.clock.Now())); werr != nil {
			return werr
		}
		return err
	}
	return nil
}

// sync computes and writes the status, and asks to look again when the
// oldest disrupted-pod entry expires.
func (c *Controller) sync(ctx context.Context, key string, pdb *policyv1.PodDisruptionBudget) error {
	pods, err := c.selectedPods(pdb)
	if err != nil {
		return err
	}
	if len(pods) == 0 {
		c.recorder.Event(pdb, corev1.EventTypeNormal, "NoPods", "No matching pods found")
	}
	expected, desired, unmanaged, err := c.expectedCount(ctx, pdb, pods)
	if err != nil {
		c.recorder.Eventf(pdb, corev1.EventTypeWarning, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: %v", err)
		return err
	}
	if len(unmanaged) > 0 {
		c.recorder.Eventf(pdb, corev1.EventTypeWarning, "UnmanagedPods", "Pods selected by this PodDisruptionBudget (selector: %v) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			"To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.", pdb.Spec.Selector)
	}
	now := c.clock.Now()
	disrupted, recheck := c.stillDisrupted(pods, pdb, now)
	healthy := countHealthy(pods, disrupted, now)
	status := computeStatus(pdb, healthy, desired, expected, disrupted, now)
	pass.Log(ctx, c.log, "PodDisruptionBudget", pdb, "reconciled budget", "pdb", key, "pods", len(pods), "expected", expected,
		"desiredHealthy", desired, "currentHealthy", healthy, "disruptionsAllowed", status.DisruptionsAllowed)
	if err := c.writeStatus(ctx, pdb, status); err != nil {
		return err
	}
	if recheck != nil {
		c.driver.EnqueueAfter(key, recheck.Sub(now))
	}
	return nil
}

// selectedPods are the pods of the budget's namespace its selector
// selects; an empty selector selects none.
func (c *Controller) selectedPods(pdb *policyv1.PodDisruptionBudget) ([]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("invalid selector: %w", err)
	}
	if sel.Empty() {
		return nil, nil
	}
	return c.podLister.Pods(pdb.Namespace).List(sel)
}

// stillDisrupted keeps the status.disruptedPods entries of pods that
// exist, are not yet being deleted, and whose entry has not expired; it
// returns when the first kept entry expires, if any.
func (c *Controller) stillDisrupted(pods []*corev1.Pod, pdb *policyv1.PodDisruptionBudget, now time.Time) (map[string]metav1.Time, *time.Time) {
	kept := map[string]metav1.Time{}
	var recheck *time.Time
	for _, pod := range pods {
		at, found := pdb.Status.DisruptedPods[pod.Name]
		if !found || pod.DeletionTimestamp != nil {
			continue
		}
		expires := at.Add(DeletionTimeout)
		if expires.Before(now) {
			c.recorder.Eventf(pod, corev1.EventTypeWarning, "NotDeleted", "Pod was expected by PDB %s/%s to be deleted but it wasn't", pdb.Namespace, pdb.Name)
			continue
		}
		kept[pod.Name] = at
		if recheck == nil || expires.Before(*recheck) {
			recheck = &expires
		}
	}
	return kept, recheck
}

// countHealthy counts ready pods that are neither being deleted nor about
// to be (disrupted).
func countHealthy(pods []*corev1.Pod, disrupted map[string]metav1.Time, now time.Time) int32 {
	var n int32
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if at, found := disrupted[pod.Name]; found && at.Add(DeletionTimeout).After(now) {
			continue
		}
		if podReady(pod) {
			n++
		}
	}
	return n
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
