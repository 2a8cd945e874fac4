package statefulset

import (
	"context"
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
)

// Reconcile brings the StatefulSet named by key ("namespace/name") one
// step closer to its spec: it settles the set's revisions, reads its pods
// from the cache, takes the next step its pod management policy and update
// strategy allow (see step), writes the status and trims the revision
// history. Repeating it is always safe.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // a malformed key can never succeed
	}
	s, err := c.setLister.StatefulSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if s.DeletionTimestamp != nil {
		return nil // the garbage collector removes its pods
	}
	h, err := c.historyOf(ctx, s)
	if err != nil {
		return err
	}
	current := s
	if h.current != h.update {
		if current, err = atRevision(s, h.current); err != nil {
			return err
		}
	}
	pods := c.podsOf(s)
	now := c.clock.Now()
	r, stepErr := c.step(ctx, newPlan(s, current, h, pods, now))
	pass.Log(ctx, c.log, "StatefulSet", s, "reconciled statefulset", "statefulset", key, "replicas", replicasOf(s), "pods", len(pods),
		"currentRevision", h.current.Name, "updateRevision", h.update.Name, "action", r.action)
	st := computeStatus(s, pods, h, r, now)
	if err := c.writeStatus(ctx, s, st); err != nil {
		return errors.Join(stepErr, err)
	}
	if err := c.truncateHistory(ctx, s, h, podRevisions(pods)); err != nil {
		return errors.Join(stepErr, err)
	}
	if stepErr != nil {
		return stepErr
	}
	if s.Spec.MinReadySeconds > 0 && st.ReadyReplicas != st.AvailableReplicas {
		c.driver.EnqueueAfter(key, time.Duration(s.Spec.MinReadySeconds)*time.Second)
	}
	return nil
}

// podsOf returns the pods s controls whose names carry an ordinal.
func (c *Controller) podsOf(s *appsv1.StatefulSet) []*corev1.Pod {
	objs, _ := c.podIndexer.ByIndex(owner.Index, string(s.UID))
	var out []*corev1.Pod
	for _, o := range objs {
		p := o.(*corev1.Pod)
		if _, ok := ordinalOf(s, p); ok && owner.IsControlledBy(p, s.UID) {
			out = append(out, p)
		}
	}
	return out
}

// podRevisions is the set of revisions some pod runs: those are kept.
func podRevisions(pods []*corev1.Pod) map[string]bool {
	out := map[string]bool{}
	for _, p := range pods {
		out[p.Labels[revisionLabel]] = true
	}
	return out
}
