// Package deployment is the Deployment controller: it turns a Deployment
// into ReplicaSets — one per pod template, named "<deployment>-<pod-template-hash>" —
// and moves replicas from the old ones to the new one as the strategy allows
// (RollingUpdate within maxSurge/maxUnavailable, or Recreate), reporting
// progress in the status and its conditions as kube-controller-manager does.
//
// It never creates pods: scaling a ReplicaSet is its only lever, and the
// ReplicaSet controller does the rest.
//
// A pass reads like the loop it teaches. Reconcile (reconcile.go) reads
// the Deployment and claims its ReplicaSets; planFor (plan.go and the
// plan*.go files) decides, without any I/O, the one step to take and the
// status that follows; execute.go takes the step (ReplicaSet writes, events);
// Reconcile logs desired, observed and action, writes the status once if it
// changed, and asks to look again at a progress deadline.
package deployment

import (
	"context"
	"errors"
	"log/slog"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
	"github.com/miniapi/miniapi/pkg/controllers/internal/ownwrite"
)

// Config configures a Controller.
type Config struct {
	// Client writes ReplicaSets and Deployment status. Required.
	Client kubernetes.Interface
	// Informers provides the Deployment, ReplicaSet and Pod caches. Required.
	Informers informers.SharedInformerFactory
	// Recorder records ScalingReplicaSet events. Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile; default slog.Default().
	Logger *slog.Logger
	// Clock stamps conditions and measures progress deadlines; default the
	// real clock.
	Clock clock.WithTicker
	// Workers is how many Deployments are reconciled at once; default 16.
	Workers int
}

// Controller is the Deployment controller. Build it with New.
type Controller struct {
	client     kubernetes.Interface
	dLister    appslisters.DeploymentLister
	rsLister   appslisters.ReplicaSetLister
	rsIndexer  cache.Indexer
	podIndexer cache.Indexer
	recorder   record.EventRecorder
	log        *slog.Logger
	clock      clock.WithTicker
	// statusWrites holds the Deployments whose status was written but is
	// not yet in the cache (see ownwrite).
	statusWrites *ownwrite.Tracker
	driver       *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("deployment: Client, Informers and Recorder are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 16
	}
	dInf := cfg.Informers.Apps().V1().Deployments()
	rsInf := cfg.Informers.Apps().V1().ReplicaSets()
	podInf := cfg.Informers.Core().V1().Pods()
	for _, inf := range []cache.SharedIndexInformer{rsInf.Informer(), podInf.Informer()} {
		if err := owner.AddIndex(inf); err != nil {
			return nil, err
		}
	}
	c := &Controller{
		client:       cfg.Client,
		dLister:      dInf.Lister(),
		rsLister:     rsInf.Lister(),
		rsIndexer:    rsInf.Informer().GetIndexer(),
		podIndexer:   podInf.Informer().GetIndexer(),
		recorder:     cfg.Recorder,
		log:          cfg.Logger.With("controller", "deployment"),
		clock:        cfg.Clock,
		statusWrites: ownwrite.New(),
	}
	d, err := driver.New(driver.Config{
		Name: "deployment", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{dInf.Informer().HasSynced, rsInf.Informer().HasSynced, podInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{dInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    d.EnqueueObject,
			UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) },
			DeleteFunc: d.EnqueueObject,
		}},
		{rsInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    c.onReplicaSet,
			UpdateFunc: func(oldObj, obj any) { c.onReplicaSet(oldObj); c.onReplicaSet(obj) },
			DeleteFunc: c.onReplicaSet,
		}},
		{podInf.Informer(), cache.ResourceEventHandlerFuncs{DeleteFunc: c.onPodDelete}},
	}
	for _, x := range handlers {
		if _, err := x.inf.AddEventHandler(x.h); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run reconciles Deployments until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// onReplicaSet enqueues the Deployment that controls rs or, for an orphan,
// every Deployment that could adopt it.
func (c *Controller) onReplicaSet(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return
	}
	if ref := metav1.GetControllerOf(rs); ref != nil {
		if ref.Kind == "Deployment" {
			c.driver.Enqueue(rs.Namespace + "/" + ref.Name)
		}
		return
	}
	ds, err := c.dLister.Deployments(rs.Namespace).List(labels.Everything())
	if err != nil {
		return
	}
	for _, d := range ds {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(rs.Labels)) {
			c.driver.Enqueue(d.Namespace + "/" + d.Name)
		}
	}
}

// onPodDelete wakes a Recreate Deployment when one of its old pods is gone:
// Recreate waits for every old pod before it scales the new ReplicaSet up.
func (c *Controller) onPodDelete(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, err := c.rsLister.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return
	}
	dref := metav1.GetControllerOf(rs)
	if dref == nil || dref.Kind != "Deployment" {
		return
	}
	d, err := c.dLister.Deployments(pod.Namespace).Get(dref.Name)
	if err == nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		c.driver.Enqueue(d.Namespace + "/" + d.Name)
	}
}
