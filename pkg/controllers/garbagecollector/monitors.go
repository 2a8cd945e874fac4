package garbagecollector

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A monitor is the metadata informer of one resource found by discovery,
// with what stops it. Custom resources come and go while the server runs,
// so the set of monitors follows discovery, as kube-controller-manager's
// garbage collector does: every DiscoveryResyncPeriod a resource newly
// served gets a monitor and one no longer served loses its own.
type monitor struct {
	kind *kind
	// cancel stops the informer and done is closed once it has stopped;
	// both nil until the monitor is started.
	cancel context.CancelFunc
	done   chan struct{}
}

// newMonitor builds the monitor of gvr, with the owner index and the event
// handlers on its informer; it does not start it.
func (c *Collector) newMonitor(gvr schema.GroupVersionResource, kindName string) (*monitor, error) {
	k := metadataKind(gvr, kindName, c.metadata)
	if err := c.watch(k); err != nil {
		return nil, fmt.Errorf("garbagecollector: watching %s: %w", gvr, err)
	}
	return &monitor{kind: k}, nil
}

// start runs m's informer until ctx is done or m is stopped. Called with
// c.monitorsMu held.
func (c *Collector) start(ctx context.Context, m *monitor) {
	ctx, m.cancel = context.WithCancel(ctx)
	m.done = make(chan struct{})
	c.monitorsRunning.Go(func() {
		defer close(m.done)
		m.kind.informer.RunWithContext(ctx)
	})
}

// stop stops m's informer, if started, and waits until it has.
func stop(m *monitor) {
	if m.cancel != nil {
		m.cancel()
		<-m.done
	}
}

// startMonitors starts every monitor not yet running, and those discovery
// adds later, with ctx.
func (c *Collector) startMonitors(ctx context.Context) {
	c.monitorsMu.Lock()
	defer c.monitorsMu.Unlock()
	c.runCtx = ctx
	for _, m := range c.monitors {
		if m.cancel == nil {
			c.start(ctx, m)
		}
	}
}

// stopMonitors stops every monitor and waits until their informers have
// ended. Monitors discovery adds after this are built but not started.
func (c *Collector) stopMonitors() {
	c.monitorsMu.Lock()
	c.runCtx = nil
	for _, m := range c.monitors {
		if m.cancel != nil {
			m.cancel()
		}
	}
	c.monitorsMu.Unlock()
	c.monitorsRunning.Wait()
}

// resyncLoop asks discovery again every DiscoveryResyncPeriod until ctx is
// done.
func (c *Collector) resyncLoop(ctx context.Context) {
	t := c.clock.NewTicker(c.resyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			c.resyncMonitors(ctx)
		}
	}
}

// resyncMonitors makes the monitors those of the deletable resources
// discovery lists now: it starts one for each resource newly served, stops
// the one of each resource no longer served, and looks again at the
// objects whose owners are of a newly served kind (until now the collector
// took those owners to exist). A group that fails discovery keeps its
// monitors; a discovery that fails altogether changes nothing.
func (c *Collector) resyncMonitors(ctx context.Context) {
	found, failed, err := deletableResources(ctx, c.discovery, c.typed)
	if err != nil {
		c.log.Warn("discovery failed; the resources collected stay as they were", "err", err)
		return
	}
	if failed != nil {
		c.log.Warn("some groups failed discovery; their resources stay as they were", "groups", slices.Collect(maps.Keys(failed)))
	}
	c.monitorsMu.Lock()
	defer c.monitorsMu.Unlock()
	for gvr, m := range c.monitors {
		if _, ok := failed[gvr.GroupVersion()]; ok {
			found[gvr] = m.kind.kind
		}
	}
	next := make(map[schema.GroupVersionResource]*monitor, len(found))
	var added []*kind
	var addedNames, removedNames []string
	for gvr, kindName := range found {
		if m, ok := c.monitors[gvr]; ok {
			next[gvr] = m
			continue
		}
		m, err := c.newMonitor(gvr, kindName)
		if err != nil {
			c.log.Error("cannot watch a resource; it is not collected", "resource", gvr.String(), "err", err)
			continue
		}
		if c.runCtx != nil {
			c.start(c.runCtx, m)
		}
		next[gvr] = m
		added = append(added, m.kind)
		addedNames = append(addedNames, m.kind.resource)
	}
	for gvr, m := range c.monitors {
		if _, ok := next[gvr]; !ok {
			stop(m)
			removedNames = append(removedNames, m.kind.resource)
		}
	}
	if len(added) == 0 && len(removedNames) == 0 {
		return
	}
	c.monitors = next
	c.publishKinds()
	slices.Sort(addedNames)
	slices.Sort(removedNames)
	c.log.Info("resources to collect changed", "added", strings.Join(addedNames, ","), "removed", strings.Join(removedNames, ","))
	for _, k := range added {
		c.enqueueDependentsOf(k)
	}
}

// publishKinds makes the typed kinds and the monitors' kinds the ones
// Reconcile and the handlers see. Called with c.monitorsMu held.
func (c *Collector) publishKinds() {
	kinds := slices.Clone(c.typed)
	for _, m := range c.monitors {
		kinds = append(kinds, m.kind)
	}
	slices.SortFunc(kinds[len(c.typed):], func(a, b *kind) int { return strings.Compare(a.resource, b.resource) })
	c.kindsMu.Lock()
	c.kinds = kinds
	c.kindsMu.Unlock()
}

// enqueueDependentsOf enqueues every cached object that names an owner of
// kind k: it was looked at while k was unknown, its owner taken to exist,
// and now the owner can be looked up. It scans the caches, which is cheap
// next to how rarely a resource appears, and costs no index kept for it.
func (c *Collector) enqueueDependentsOf(k *kind) {
	for _, kk := range c.currentKinds() {
		for _, obj := range kk.informer.GetStore().List() {
			m, err := meta.Accessor(obj)
			if err != nil {
				continue
			}
			for _, r := range m.GetOwnerReferences() {
				if schema.FromAPIVersionAndKind(r.APIVersion, r.Kind).GroupKind() == k.gk {
					c.driver.Enqueue(kk.resource + "/" + m.GetNamespace() + "/" + m.GetName())
					break
				}
			}
		}
	}
}

// cachesSynced reports whether every watched kind's cache has synced. A
// monitor just started has not: until it has, an owner cannot know all
// its dependents.
func (c *Collector) cachesSynced() bool {
	for _, k := range c.currentKinds() {
		if !k.informer.HasSynced() {
			return false
		}
	}
	return true
}
