package daemonset

import (
	"context"
	"errors"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
)

// Reconcile brings the DaemonSet named by key one step closer to one
// current pod on every node it should run on. It is level-based: it reads
// the DaemonSet, the nodes and its pods from the caches, makes the
// missing pods, deletes the extra and misplaced ones, and only when
// nothing else is to do deletes old pods for a rolling update (up to
// maxUnavailable). Then it writes the status. Repeating it is safe.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // a malformed key can never succeed
	}
	ds, err := c.dsLister.DaemonSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.expect.Forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	own, err := c.ownRevisions(ds)
	if err != nil {
		return err
	}
	hash, err := c.currentRevision(ctx, ds, own)
	if err != nil {
		return err
	}
	// Decide before reading pods: an event arriving in between then only
	// makes us more careful, never less.
	synced := c.expect.Satisfied(key)
	plan, err := c.plan(ctx, ds)
	if err != nil {
		return err
	}
	action := "none"
	var manageErr error
	switch {
	case ds.DeletionTimestamp != nil:
		action = "none (daemonset is being deleted)"
	case !synced:
		adds, dels := c.expect.Pending(key)
		action = fmt.Sprintf("wait for %d creations and %d deletions to be observed", adds, dels)
	default:
		action, manageErr = c.manage(ctx, key, ds, plan, hash)
	}
	pass.Log(ctx, c.log, "DaemonSet", ds, "reconciled daemonset", "daemonset", key, "nodes", len(plan.nodes), "action", action)
	if err := c.trimHistory(ctx, ds, own, hash, plan.hashesInUse()); err != nil {
		manageErr = errors.Join(manageErr, err)
	}
	now := c.clock.Now()
	st := computeStatus(ds, plan, hash, now)
	if err := c.writeStatus(ctx, ds, st); err != nil {
		return errors.Join(manageErr, err)
	}
	// A surge pod's availability shows in no status field: look again
	// when it may have become available.
	surging := maxSurge(ds, int(st.DesiredNumberScheduled)) > 0 && st.UpdatedNumberScheduled != st.DesiredNumberScheduled
	if manageErr == nil && ds.Spec.MinReadySeconds > 0 && (st.NumberReady != st.NumberAvailable || surging) {
		c.driver.EnqueueAfter(key, minReadyDelay(ds))
	}
	return manageErr
}

// planNode is one node and whether ds should run there.
type planNode struct {
	Name string
	run  bool
}

// nodePlan is ds's view of the cluster: every node, the live pods on
// each (oldest first), the nodes with a pod still terminating, and the
// pods to remove whatever happens (failed, or for a node that is gone).
type nodePlan struct {
	nodes       []planNode
	pods        map[string][]*corev1.Pod
	terminating map[string]bool
	doomed      []*corev1.Pod
}

func (p *nodePlan) hashesInUse() map[string]bool {
	in := map[string]bool{}
	for _, pods := range p.pods {
		for _, pod := range pods {
			in[pod.Labels[hashLabel]] = true
		}
	}
	return in
}

func (c *Controller) plan(ctx context.Context, ds *appsv1.DaemonSet) (*nodePlan, error) {
	nodes, err := c.nodeLister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	p := &nodePlan{pods: map[string][]*corev1.Pod{}, terminating: map[string]bool{}}
	known := map[string]bool{}
	for _, n := range nodes {
		known[n.Name] = true
		p.nodes = append(p.nodes, planNode{Name: n.Name, run: shouldRun(ds, n)})
	}
	pods, err := c.claimPods(ctx, ds)
	if err != nil {
		return nil, err
	}
	for _, pod := range pods {
		node := podNode(pod)
		switch {
		case pod.DeletionTimestamp != nil:
			p.terminating[node] = true
		case pod.Status.Phase == corev1.PodFailed || !known[node]:
			p.doomed = append(p.doomed, pod)
		case !isTerminal(pod):
			p.pods[node] = append(p.pods[node], pod)
		}
	}
	for _, pods := range p.pods {
		sort.Slice(pods, func(i, j int) bool {
			return pods[i].CreationTimestamp.Before(&pods[j].CreationTimestamp) ||
				pods[i].CreationTimestamp.Equal(&pods[j].CreationTimestamp) && pods[i].Name < pods[j].Name
		})
	}
	return p, nil
}
