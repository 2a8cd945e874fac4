package deployment

import (
	"context"
	"errors"
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
// ReplicaSets from the informer caches, plans the smallest step the
// strategy allows (planFor: create the new ReplicaSet, scale, clean up
// history, or nothing), takes it, writes the status once, and returns. It
// is safe to run at any time, any number of times, after a crash or for a
// Deployment that is gone: a second run finds less (or no) gap. An error
// (a conflict with a concurrent writer, say) makes the driver call it
// again with backoff.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	d, err := c.dLister.Deployments(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.statusWrites.Forget(key)
		c.log.Debug("deployment gone, nothing to do", "deployment", key)
		return nil
	}
	if err != nil {
		return err
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() {
		return c.refuseSelector(ctx, d)
	}
	rss, err := c.claimReplicaSets(ctx, d, sel)
	if err != nil {
		return err
	}
	in := passInput{Deployment: d, ReplicaSets: rss, Now: c.clock.Now()}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		if in.Pods, err = c.podsByReplicaSet(rss); err != nil {
			return err
		}
	}
	return c.carryOut(ctx, key, d, planFor(in), describe(rss, d))
}

// carryOut takes p's action, logs the pass, and records the status.
func (c *Controller) carryOut(ctx context.Context, key string, d *appsv1.Deployment, p plan, observed string) error {
	failed, err := c.execute(ctx, d, p)
	act := p.Action.Describe
	if err != nil {
		// Say what the pass tried; the driver logs the error itself.
		act = "failed: " + string(p.Action.Kind)
		if p.UpdateNewRS != nil {
			act = "failed: update new replicaset, then " + string(p.Action.Kind)
		}
	}
	pass.Log(ctx, c.log, "Deployment", d, "reconciled deployment", "deployment", key,
		"desired", fmt.Sprintf("%d replicas of template %s (generation %d)", replicas(d.Spec.Replicas), podTemplateHash(&d.Spec.Template, d.Status.CollisionCount), d.Generation),
		"observed", observed, "action", act)
	if err != nil {
		// The action did not happen, so the plan's status would be wrong;
		// only a failed create has something of its own to say.
		if failed != nil {
			err = errors.Join(err, c.record(ctx, d, *failed, ""))
		}
		return err
	}
	if p.Requeue {
		c.requeue(key, p)
	}
	if !p.changes(d) {
		return nil
	}
	if c.statusWrites.Pending(key, d.ResourceVersion) {
		// The previous status write is not in the cache yet: its event
		// brings this Deployment back, and that pass writes (ownwrite).
		c.log.Debug("status write waits for the previous one to reach the cache", "deployment", key)
		return nil
	}
	return c.record(ctx, d, p.Status, p.Revision)
}

func (c *Controller) requeue(key string, p plan) {
	if p.RequeueAfter == 0 {
		c.driver.Enqueue(key)
		return
	}
	c.driver.EnqueueAfter(key, p.RequeueAfter)
}

// record is the one write of a Deployment's status: st, and the revision
// annotation ("" leaves it), which the status subresource carries as
// kube-apiserver's does. A conflict goes back to the driver for a retry.
func (c *Controller) record(ctx context.Context, d *appsv1.Deployment, st appsv1.DeploymentStatus, revision string) error {
	cp := d.DeepCopy()
	cp.Status = st
	if revision != "" {
		setDeploymentRevision(cp, revision)
	}
	written, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{})
	if err == nil {
		c.statusWrites.Wrote(d.Namespace+"/"+d.Name, written.ResourceVersion)
	}
	return err
}

// refuseSelector handles an empty or invalid selector, which would select
// every pod in the namespace: kube refuses to act and says so.
func (c *Controller) refuseSelector(ctx context.Context, d *appsv1.Deployment) error {
	c.recorder.Eventf(d, corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
	if d.Status.ObservedGeneration >= d.Generation {
		return nil
	}
	st := *d.Status.DeepCopy()
	st.ObservedGeneration = d.Generation
	return c.record(ctx, d, st, "")
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
