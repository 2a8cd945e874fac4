package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
)

// Reconcile brings the Deployment named by key ("namespace/name") one step
// closer to its spec: spec.replicas available pods, all running the current
// template.
//
// It is level-based: it never asks "what happened?", only "what is wanted
// and what is there now?". It reads the latest Deployment and its
// ReplicaSets from the informer caches and takes the smallest step the
// strategy allows — create the new ReplicaSet, scale one up or down, clean
// up history, write the status — then returns. It is safe to run at any
// time, any number of times, after a crash or for a Deployment that is
// gone: a second run finds less (or no) gap. An error (a conflict with a
// concurrent writer, say) makes the driver call it again with backoff.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cached, err := c.dLister.Deployments(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.log.Debug("deployment gone, nothing to do", "deployment", key)
		return nil
	}
	if err != nil {
		return err
	}
	d := cached.DeepCopy()
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() {
		return c.refuseSelector(ctx, d)
	}
	rss, err := c.claimReplicaSets(ctx, d, sel)
	if err != nil {
		return err
	}
	action, err := c.step(ctx, d, rss)
	pass.Log(ctx, c.log, "Deployment", d, "reconciled deployment", "deployment", key,
		"desired", fmt.Sprintf("%d replicas of template %s (generation %d)", replicas(d.Spec.Replicas), podTemplateHash(&d.Spec.Template, d.Status.CollisionCount), d.Generation),
		"observed", describe(rss, d), "action", action)
	return err
}

// step picks the kind of step d needs now and takes it.
func (c *Controller) step(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (string, error) {
	if d.DeletionTimestamp != nil {
		newRS := findNew(d, rss)
		_, oldRSs := findOld(rss, newRS)
		return "status only (deployment is being deleted)", c.syncStatus(ctx, d, append(oldRSs, newRS), newRS)
	}
	d, err := c.checkPaused(ctx, d)
	if err != nil {
		return "note paused/resumed", err
	}
	if d.Spec.Paused {
		return c.scaleAndSync(ctx, d, rss, "paused: scale only")
	}
	if isScalingEvent(d, rss) {
		return c.scaleAndSync(ctx, d, rss, "scaled replicasets proportionally")
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return c.rolloutRecreate(ctx, d, rss)
	}
	return c.rolloutRolling(ctx, d, rss)
}

// scaleAndSync resizes ReplicaSets to a changed spec.replicas without
// rolling out, then writes status (paused Deployments only do this).
func (c *Controller) scaleAndSync(ctx context.Context, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, action string) (string, error) {
	d, newRS, oldRSs, err := c.replicaSets(ctx, d, rss, false)
	if err != nil {
		return action, err
	}
	if err := c.scale(ctx, d, newRS, oldRSs); err != nil {
		return action, err
	}
	if d.Spec.Paused {
		if err := c.cleanupOldReplicaSets(ctx, d, oldRSs); err != nil {
			return action, err
		}
	}
	all := append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS)
	return action, c.syncStatus(ctx, d, all, newRS)
}

// refuseSelector handles an empty or invalid selector, which would select
// every pod in the namespace: kube refuses to act and says so.
func (c *Controller) refuseSelector(ctx context.Context, d *appsv1.Deployment) error {
	c.recorder.Eventf(d, corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
	if d.Status.ObservedGeneration >= d.Generation {
		return nil
	}
	d.Status.ObservedGeneration = d.Generation
	_, err := c.writeStatus(ctx, d)
	return err
}

// describe summarises the ReplicaSets for the log: name=spec/ready/available.
func describe(rss []*appsv1.ReplicaSet, d *appsv1.Deployment) string {
	if len(rss) == 0 {
		return "no replicasets"
	}
	s := ""
	for i, rs := range rss {
		if i > 0 {
			s += ", "
		}
		mark := ""
		if equalIgnoringHash(&rs.Spec.Template, &d.Spec.Template) {
			mark = "(new)"
		}
		s += fmt.Sprintf("%s%s spec=%d ready=%d available=%d", rs.Name, mark, replicas(rs.Spec.Replicas), rs.Status.ReadyReplicas, rs.Status.AvailableReplicas)
	}
	return s
}
