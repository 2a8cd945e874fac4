// Package garbagecollector deletes what nobody owns any more, as
// kube-controller-manager's garbage collector does for ownerReferences:
//
//   - Background: a dependent all of whose owners are gone (no object with
//     that uid) is deleted; one with some owners left loses the dangling
//     references.
//   - Foreground: an owner being deleted with the foregroundDeletion
//     finalizer gets its dependents deleted, and loses the finalizer (so the
//     server removes it) once no dependent with blockOwnerDeletion is left.
//   - Orphan: an owner being deleted with the orphan finalizer gets the
//     references to it stripped from its dependents, then loses the
//     finalizer.
//
// It is level-triggered: every object with owners is looked at when the
// collector starts and on every informer resync, so orphans left while it was
// not running (a crash, --controllers=false) are found too.
//
// The resources watched follow discovery (monitors.go): a custom resource
// served after start is collected within DiscoveryResyncPeriod.
package garbagecollector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
)

// The finalizers the API server puts on an object deleted with
// propagationPolicy Foreground or Orphan.
const (
	FinalizerForeground = metav1.FinalizerDeleteDependents // "foregroundDeletion"
	FinalizerOrphan     = metav1.FinalizerOrphanDependents // "orphan"
)

// metadataResync is how often the metadata informers replay every object,
// as the controllers' shared informers do: each replay is a level-triggered
// look at every owned object.
const metadataResync = 10 * time.Minute

// DefaultDiscoveryResyncPeriod is how often discovery is asked again by
// default, as by kube-controller-manager's garbage collector.
const DefaultDiscoveryResyncPeriod = 30 * time.Second

// Config configures a Collector.
type Config struct {
	Client    kubernetes.Interface
	Informers informers.SharedInformerFactory
	// Metadata, if set, extends the collector from Pods, ReplicaSets and
	// Deployments (watched through Informers) to every other namespaced
	// resource that Client's discovery lists as deletable, watched through
	// metadata-only informers the collector starts and stops itself.
	Metadata metadata.Interface
	// DiscoveryResyncPeriod is how often discovery is asked again (with
	// Metadata), so that a resource served after start (a custom
	// resource) is collected and one no longer served is let go; default
	// DefaultDiscoveryResyncPeriod.
	DiscoveryResyncPeriod time.Duration
	Logger                *slog.Logger
	Clock                 clock.WithTicker
	// Workers is how many objects are handled concurrently; default 4.
	Workers int
}

// Collector is the garbage collector.
type Collector struct {
	// typed are the kinds watched through the shared informers; fixed.
	typed []*kind
	// kinds are typed and the monitors' kinds: the kinds collected now.
	// The slice is replaced whole, never changed in place.
	kinds   []*kind
	kindsMu sync.RWMutex

	// With Config.Metadata: the resources found by discovery, each with
	// its monitor, and the context monitors run with (nil unless Run is
	// running).
	discovery       discovery.DiscoveryInterface
	metadata        metadata.Interface
	resyncPeriod    time.Duration
	monitors        map[schema.GroupVersionResource]*monitor
	runCtx          context.Context
	monitorsMu      sync.Mutex
	monitorsRunning sync.WaitGroup

	clock  clock.WithTicker
	log    *slog.Logger
	driver *driver.Driver
}

// New validates cfg, fills defaults, discovers the resources to collect
// (with cfg.Metadata) and registers the owner index and the event handlers
// on every kind's informer.
func New(cfg Config) (*Collector, error) {
	if cfg.Client == nil || cfg.Informers == nil {
		return nil, errors.New("garbagecollector: Client and Informers are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.DiscoveryResyncPeriod <= 0 {
		cfg.DiscoveryResyncPeriod = DefaultDiscoveryResyncPeriod
	}
	c := &Collector{
		typed:     kinds(cfg.Client, cfg.Informers),
		discovery: cfg.Client.Discovery(), metadata: cfg.Metadata, resyncPeriod: cfg.DiscoveryResyncPeriod,
		monitors: map[schema.GroupVersionResource]*monitor{},
		clock:    cfg.Clock, log: cfg.Logger.With("controller", "garbagecollector"),
	}
	d, err := driver.New(driver.Config{
		Name: "garbagecollector", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{c.cachesSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	for _, k := range c.typed {
		if err := c.watch(k); err != nil {
			return nil, fmt.Errorf("garbagecollector: %w", err)
		}
	}
	if cfg.Metadata != nil {
		found, failed, err := deletableResources(context.Background(), c.discovery, c.typed)
		if err != nil {
			return nil, fmt.Errorf("garbagecollector: %w", err)
		}
		if failed != nil {
			c.log.Warn("some groups failed discovery; their resources are not collected until they answer", "groups", slices.Collect(maps.Keys(failed)))
		}
		for gvr, kindName := range found {
			m, err := c.newMonitor(gvr, kindName)
			if err != nil {
				return nil, err
			}
			c.monitors[gvr] = m
		}
	}
	c.monitorsMu.Lock()
	c.publishKinds()
	c.monitorsMu.Unlock()
	return c, nil
}

// watch registers the owner index and the event handlers on k's informer.
func (c *Collector) watch(k *kind) error {
	if err := k.informer.AddIndexers(cache.Indexers{ownerUIDIndex: indexByOwnerUID}); err != nil {
		return err
	}
	_, err := k.informer.AddEventHandler(c.handlers(k))
	return err
}

// currentKinds are the kinds collected now.
func (c *Collector) currentKinds() []*kind {
	c.kindsMu.RLock()
	defer c.kindsMu.RUnlock()
	return c.kinds
}

// Run runs the collector, the monitors it owns and, with Config.Metadata,
// the periodic discovery that starts and stops them, until ctx is done
// and all of them have stopped.
func (c *Collector) Run(ctx context.Context) error {
	if c.metadata != nil {
		c.startMonitors(ctx)
		defer c.stopMonitors()
		var loop sync.WaitGroup
		defer loop.Wait()
		loop.Go(func() { c.resyncLoop(ctx) })
	}
	return c.driver.Run(ctx)
}

// handlers enqueue what a change may concern: the object itself if it has
// owners or is being deleted with a finalizer of ours; its owners if they
// are being deleted (they may be waiting for it); and, when it is deleted,
// its dependents (they may be orphans now).
func (c *Collector) handlers(k *kind) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.enqueueSelf(k, obj) },
		UpdateFunc: func(oldObj, obj any) {
			o, errO := meta.Accessor(oldObj)
			n, errN := meta.Accessor(obj)
			if errO != nil || errN != nil {
				return
			}
			resync := o.GetResourceVersion() == n.GetResourceVersion()
			if resync || n.GetDeletionTimestamp() != nil ||
				!slices.EqualFunc(o.GetOwnerReferences(), n.GetOwnerReferences(), func(a, b metav1.OwnerReference) bool { return a.UID == b.UID }) {
				c.enqueueSelf(k, obj)
				c.enqueueDeletingOwners(n)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			m, err := meta.Accessor(obj)
			if err != nil {
				return
			}
			for _, d := range c.dependents(m.GetUID()) {
				c.driver.Enqueue(d.key())
			}
			c.enqueueDeletingOwners(m)
		},
	}
}

func (c *Collector) enqueueSelf(k *kind, obj any) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if len(m.GetOwnerReferences()) > 0 || (m.GetDeletionTimestamp() != nil && ourFinalizer(m)) {
		c.driver.Enqueue(k.resource + "/" + m.GetNamespace() + "/" + m.GetName())
	}
}

// enqueueDeletingOwners enqueues m's owners that are being deleted.
func (c *Collector) enqueueDeletingOwners(m metav1.Object) {
	for _, r := range m.GetOwnerReferences() {
		k := c.kindOf(r)
		if k == nil {
			continue
		}
		key := m.GetNamespace() + "/" + r.Name
		obj, ok, _ := k.informer.GetIndexer().GetByKey(key)
		if !ok {
			continue
		}
		if om, err := meta.Accessor(obj); err == nil && om.GetDeletionTimestamp() != nil {
			c.driver.Enqueue(k.resource + "/" + key)
		}
	}
}

func ourFinalizer(m metav1.Object) bool {
	f := m.GetFinalizers()
	return slices.Contains(f, FinalizerForeground) || slices.Contains(f, FinalizerOrphan)
}

// kindOf is the kind r names, in whichever version, or nil if the
// collector does not watch it (a cluster-scoped kind, or a resource
// discovery has not listed yet).
func (c *Collector) kindOf(r metav1.OwnerReference) *kind {
	gk := schema.FromAPIVersionAndKind(r.APIVersion, r.Kind).GroupKind()
	for _, k := range c.currentKinds() {
		if k.gk == gk {
			return k
		}
	}
	return nil
}

// dependents lists the cached objects, of every kind, that name uid as an
// owner.
func (c *Collector) dependents(uid types.UID) []object {
	var out []object
	for _, k := range c.currentKinds() {
		objs, _ := k.informer.GetIndexer().ByIndex(ownerUIDIndex, string(uid))
		for _, o := range objs {
			if m, err := meta.Accessor(o); err == nil {
				out = append(out, object{kind: k, obj: o.(runtime.Object), meta: m})
			}
		}
	}
	return out
}

// Reconcile looks at the object named key ("pods/ns/name",
// "replicasets/ns/name", "leases.coordination.k8s.io/ns/name", ...) and takes the one step
// the rules above ask for. Level-based: it reads the object and its owners
// or dependents as they are now, never what an event said, so it is safe to
// repeat and heals anything missed while it was not running.
func (c *Collector) Reconcile(ctx context.Context, key string) error {
	res, nsName, ok := strings.Cut(key, "/")
	if !ok {
		return nil
	}
	var k *kind
	for _, kk := range c.currentKinds() {
		if kk.resource == res {
			k = kk
		}
	}
	if k == nil {
		return nil
	}
	obj, exists, err := k.informer.GetIndexer().GetByKey(nsName)
	if err != nil || !exists {
		return err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	o := object{kind: k, obj: obj.(runtime.Object), meta: m}
	switch {
	case m.GetDeletionTimestamp() != nil && slices.Contains(m.GetFinalizers(), FinalizerOrphan):
		return c.orphanDependents(ctx, o)
	case m.GetDeletionTimestamp() != nil && slices.Contains(m.GetFinalizers(), FinalizerForeground):
		return c.deleteDependents(ctx, o)
	case m.GetDeletionTimestamp() != nil:
		return nil
	}
	return c.checkOwners(ctx, o)
}

// checkOwners deletes o if every owner it names is gone, or strips the
// references to the gone ones if some remain.
func (c *Collector) checkOwners(ctx context.Context, o object) error {
	refs := o.meta.GetOwnerReferences()
	if len(refs) == 0 {
		return nil
	}
	var keep []metav1.OwnerReference
	for _, r := range refs {
		exists, err := c.ownerExists(ctx, o.meta.GetNamespace(), r)
		if err != nil {
			return err
		}
		if exists {
			keep = append(keep, r)
		}
	}
	switch {
	case len(keep) == len(refs):
		return nil
	case len(keep) == 0:
		c.log.Info("reconcile", "object", o.String(), "desired", "owned or gone", "observed", "every owner gone", "action", "delete (background)")
		return c.deleteObject(ctx, o, metav1.DeletePropagationBackground)
	}
	c.log.Info("reconcile", "object", o.String(), "desired", "only live owners", "observed", fmt.Sprintf("%d of %d owners gone", len(refs)-len(keep), len(refs)), "action", "remove dangling ownerReferences")
	return c.setOwnerRefs(ctx, o, keep)
}

// ownerExists reports whether the object r names exists with r's uid. The
// cache answers "yes"; a "no" is confirmed with the API, since the cache may
// not have seen a new owner yet. Owners of kinds the collector does not
// watch are taken to exist, never guessed gone: the kind may be cluster
// scoped, or served since the last discovery (kube's collector retries
// such an owner; this one looks again at its dependents once discovery
// lists the kind, see enqueueDependentsOf).
func (c *Collector) ownerExists(ctx context.Context, ns string, r metav1.OwnerReference) (bool, error) {
	k := c.kindOf(r)
	if k == nil {
		return true, nil
	}
	if obj, ok, _ := k.informer.GetIndexer().GetByKey(ns + "/" + r.Name); ok {
		if m, err := meta.Accessor(obj); err == nil && m.GetUID() == r.UID {
			return true, nil
		}
	}
	live, err := k.get(ctx, ns, r.Name)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("looking up owner %s %s/%s: %w", r.Kind, ns, r.Name, err)
	}
	return live.GetUID() == r.UID, nil
}

// deleteDependents is foreground deletion of owner o: delete each
// dependent not yet being deleted (in the foreground too if it has
// dependents of its own), then drop the finalizer once no dependent that
// blocks owner deletion is left.
func (c *Collector) deleteDependents(ctx context.Context, o object) error {
	blocking := 0
	for _, d := range c.dependents(o.meta.GetUID()) {
		if blocks(d.meta, o.meta.GetUID()) {
			blocking++
		}
		if d.meta.GetDeletionTimestamp() != nil {
			continue
		}
		policy := metav1.DeletePropagationBackground
		if len(c.dependents(d.meta.GetUID())) > 0 {
			policy = metav1.DeletePropagationForeground
		}
		c.log.Info("reconcile", "object", o.String(), "desired", "dependents gone first (foreground)", "observed", "dependent "+d.String(), "action", "delete dependent ("+string(policy)+")")
		if err := c.deleteObject(ctx, d, policy); err != nil {
			return err
		}
	}
	if blocking > 0 {
		return nil // their deletion events bring us back
	}
	if err := c.requireSynced(); err != nil {
		return err
	}
	c.log.Info("reconcile", "object", o.String(), "desired", "dependents gone first (foreground)", "observed", "no blocking dependents", "action", "remove finalizer "+FinalizerForeground)
	return c.removeFinalizer(ctx, o, FinalizerForeground)
}

// errNotSynced is retried: an owner cannot know all its dependents until
// every cache has synced, a monitor just started by discovery among them.
var errNotSynced = errors.New("waiting for the caches to sync before removing the finalizer")

func (c *Collector) requireSynced() error {
	if !c.cachesSynced() {
		return errNotSynced
	}
	return nil
}

func blocks(dep metav1.Object, owner types.UID) bool {
	for _, r := range dep.GetOwnerReferences() {
		if r.UID == owner && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// orphanDependents is orphan deletion of owner o: strip the references to
// it from every dependent, then drop the finalizer.
func (c *Collector) orphanDependents(ctx context.Context, o object) error {
	uid := o.meta.GetUID()
	for _, d := range c.dependents(uid) {
		var keep []metav1.OwnerReference
		for _, r := range d.meta.GetOwnerReferences() {
			if r.UID != uid {
				keep = append(keep, r)
			}
		}
		c.log.Info("reconcile", "object", o.String(), "desired", "dependents orphaned", "observed", "dependent "+d.String(), "action", "remove its ownerReference")
		if err := c.setOwnerRefs(ctx, d, keep); err != nil {
			return err
		}
	}
	if err := c.requireSynced(); err != nil {
		return err
	}
	c.log.Info("reconcile", "object", o.String(), "desired", "dependents orphaned", "observed", "no dependents", "action", "remove finalizer "+FinalizerOrphan)
	return c.removeFinalizer(ctx, o, FinalizerOrphan)
}

// deleteObject deletes o, guarded by its uid so that a new object of the
// same name is never hit.
func (c *Collector) deleteObject(ctx context.Context, o object, policy metav1.DeletionPropagation) error {
	uid := o.meta.GetUID()
	err := o.kind.delete(ctx, o.meta.GetNamespace(), o.meta.GetName(), metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &policy,
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// setOwnerRefs replaces o's ownerReferences with refs by a merge patch
// that names o's uid, so that it fails on a new object of the same name.
func (c *Collector) setOwnerRefs(ctx context.Context, o object, refs []metav1.OwnerReference) error {
	patch := map[string]any{"metadata": map[string]any{"uid": o.meta.GetUID(), "ownerReferences": refs}}
	if len(refs) == 0 {
		patch["metadata"].(map[string]any)["ownerReferences"] = nil
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	err = o.kind.patch(ctx, o.meta.GetNamespace(), o.meta.GetName(), data)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// removeFinalizer writes o back without finalizer; a conflict is retried
// with backoff by the driver, on a fresher copy.
func (c *Collector) removeFinalizer(ctx context.Context, o object, finalizer string) error {
	cp := o.obj.DeepCopyObject()
	m, err := meta.Accessor(cp)
	if err != nil {
		return err
	}
	m.SetFinalizers(slices.DeleteFunc(slices.Clone(m.GetFinalizers()), func(f string) bool { return f == finalizer }))
	err = o.kind.update(ctx, cp)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
