// Package namespace empties namespaces being deleted, as
// kube-controller-manager's namespace controller does: a namespace with a
// deletionTimestamp (phase Terminating) has every object in it deleted;
// once nothing is left, the controller removes the "kubernetes" finalizer
// through the namespaces/finalize subresource and the API server removes
// the namespace.
package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
)

// Config configures a Controller.
type Config struct {
	// Client reads and finalizes namespaces, and its discovery client
	// lists the resources a namespace can hold.
	Client kubernetes.Interface
	// Metadata lists and deletes those resources' objects, whatever their
	// kind.
	Metadata  metadata.Interface
	Informers informers.SharedInformerFactory
	Logger    *slog.Logger
	Clock     clock.WithTicker
	// Recheck is how long to wait before looking again at a namespace whose
	// content is still going away (pods take --pod-ready-delay); default
	// 250ms.
	Recheck time.Duration
}

// Controller empties and finalizes terminating namespaces.
type Controller struct {
	client    kubernetes.Interface
	discovery discovery.DiscoveryInterface
	metadata  metadata.Interface
	ns        corelisters.NamespaceLister
	recheck   time.Duration
	clock     clock.Clock
	log       *slog.Logger
	driver    *driver.Driver
}

// New validates cfg, fills defaults and registers the event handlers.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Metadata == nil || cfg.Informers == nil {
		return nil, errors.New("namespace: Client, Metadata and Informers are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Recheck <= 0 {
		cfg.Recheck = 250 * time.Millisecond
	}
	inf := cfg.Informers.Core().V1().Namespaces()
	c := &Controller{
		client:    cfg.Client,
		discovery: cfg.Client.Discovery(),
		metadata:  cfg.Metadata,
		ns:        inf.Lister(),
		recheck:   cfg.Recheck,
		clock:     cfg.Clock,
		log:       cfg.Logger.With("controller", "namespace"),
	}
	d, err := driver.New(driver.Config{
		Name: "namespace", Reconciler: c, Workers: 2, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{inf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	onNS := func(obj any) {
		if n, ok := obj.(*corev1.Namespace); ok && n.DeletionTimestamp != nil {
			d.EnqueueObject(n)
		}
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onNS, UpdateFunc: func(_, obj any) { onNS(obj) },
	}); err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	return c, nil
}

// Run runs the controller until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// Reconcile takes the namespace named key one step towards gone.
// Level-based: if it is terminating and still holds objects, delete them
// all (again — deleting what is already being deleted is harmless) and
// look again shortly; if it is terminating and empty, finalize it; else
// nothing.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	ns, err := c.ns.Get(key)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return nil
	}
	left, err := c.deleteContents(ctx, key)
	if err != nil {
		return err
	}
	if err := c.writeConditions(ctx, ns, left); err != nil {
		return err
	}
	if !left.empty() || left.discoveryErr != nil {
		c.log.Info("reconcile", "namespace", key, "desired", "empty, then gone", "observed", "remaining: "+joinCounts(left.counts, "%s %d"), "action", "delete contents, look again in "+c.recheck.String())
		c.driver.EnqueueAfter(key, c.recheck)
		return errors.Join(left.deleteErr, left.discoveryErr)
	}
	c.log.Info("reconcile", "namespace", key, "desired", "empty, then gone", "observed", "empty", "action", "finalize (remove the kubernetes finalizer)")
	upd := ns.DeepCopy()
	upd.Spec.Finalizers = slices.DeleteFunc(upd.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	_, err = c.client.CoreV1().Namespaces().Finalize(ctx, upd, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteContents deletes every object of every namespaced resource in
// namespace ns and reports what was still there. A failed deletion is
// recorded, not returned: the other resources are still deleted.
func (c *Controller) deleteContents(ctx context.Context, ns string) (leftovers, error) {
	left := leftovers{counts: map[string]int{}, finalizers: map[string]int{}}
	resources, err := c.namespacedResources()
	left.discoveryErr = err
	for _, r := range resources {
		items, err := c.remaining(ctx, r, ns)
		if err != nil {
			return left, err
		}
		if len(items) == 0 {
			continue
		}
		left.counts[r.name()] = len(items)
		for _, item := range items {
			for _, f := range item.Finalizers {
				left.finalizers[f]++
			}
		}
		if err := c.deleteAll(ctx, r, ns, items); err != nil && left.deleteErr == nil {
			left.deleteErr = err
		}
	}
	return left, nil
}

// writeConditions posts the deletion conditions when they changed.
func (c *Controller) writeConditions(ctx context.Context, ns *corev1.Namespace, left leftovers) error {
	want := left.conditions(metav1.NewTime(c.clock.Now()))
	if conditionsCurrent(ns.Status.Conditions, want) {
		return nil
	}
	for i := range want { // a condition whose status did not change keeps its time
		for _, h := range ns.Status.Conditions {
			if h.Type == want[i].Type && h.Status == want[i].Status {
				want[i].LastTransitionTime = h.LastTransitionTime
			}
		}
	}
	upd := ns.DeepCopy()
	upd.Status.Conditions = want
	_, err := c.client.CoreV1().Namespaces().UpdateStatus(ctx, upd, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
