// Package statefulset is the StatefulSet controller: it keeps pods named
// <set>-<ordinal> for ordinals start..start+replicas-1, each with a stable
// hostname under the set's service and its own claims, creates and removes
// them in order (OrderedReady) or all at once (Parallel), rolls template
// changes from the highest ordinal down to the partition, and reports what
// it sees in the status.
//
// Pod names are fixed, so a repeated creation meets AlreadyExists and a
// deletion carries the pod's UID as a precondition: a reconcile acting on a
// stale cache never creates twice nor deletes a replacement. That is why,
// unlike the ReplicaSet controller, it needs no expectations.
package statefulset

import (
	"context"
	"errors"
	"log/slog"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// Config configures a Controller.
type Config struct {
	// Client writes pods, claims, ControllerRevisions and status. Required.
	Client kubernetes.Interface
	// Informers provides the StatefulSet, Pod, PersistentVolumeClaim and
	// ControllerRevision caches. Required.
	Informers informers.SharedInformerFactory
	// Recorder records SuccessfulCreate/SuccessfulDelete events. Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile; default slog.Default().
	Logger *slog.Logger
	// Clock tells the time for availability (minReadySeconds); default
	// the real clock.
	Clock clock.WithTicker
	// Workers is how many StatefulSets are reconciled at once; default 5.
	Workers int
}

// Controller is the StatefulSet controller. Build it with New.
type Controller struct {
	client      kubernetes.Interface
	setLister   appslisters.StatefulSetLister
	revLister   appslisters.ControllerRevisionLister
	claimLister corelisters.PersistentVolumeClaimLister
	podIndexer  cache.Indexer
	recorder    record.EventRecorder
	log         *slog.Logger
	clock       clock.WithTicker
	driver      *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("statefulset: Client, Informers and Recorder are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 5
	}
	setInf := cfg.Informers.Apps().V1().StatefulSets()
	podInf := cfg.Informers.Core().V1().Pods()
	revInf := cfg.Informers.Apps().V1().ControllerRevisions()
	claimInf := cfg.Informers.Core().V1().PersistentVolumeClaims()
	if err := owner.AddIndex(podInf.Informer()); err != nil {
		return nil, err
	}
	c := &Controller{
		client:      cfg.Client,
		setLister:   setInf.Lister(),
		revLister:   revInf.Lister(),
		claimLister: claimInf.Lister(),
		podIndexer:  podInf.Informer().GetIndexer(),
		recorder:    cfg.Recorder,
		log:         cfg.Logger.With("controller", "statefulset"),
		clock:       cfg.Clock,
	}
	d, err := driver.New(driver.Config{
		Name: "statefulset", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{setInf.Informer().HasSynced, podInf.Informer().HasSynced,
			revInf.Informer().HasSynced, claimInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	if _, err := setInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.EnqueueObject,
		UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) },
		DeleteFunc: d.EnqueueObject,
	}); err != nil {
		return nil, err
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onPod,
		UpdateFunc: func(_, obj any) { c.onPod(obj) },
		DeleteFunc: c.onPod,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles StatefulSets until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// onPod enqueues the StatefulSet that controls a pod.
func (c *Controller) onPod(obj any) {
	if key, ok := owner.ControllerKey(obj, setKind); ok {
		c.driver.Enqueue(key)
	}
}
