// Package daemonset is the DaemonSet controller: one pod per Node the
// DaemonSet should run on, a ControllerRevision per template, rolling or
// OnDelete updates, and the status kubectl rollout status reads.
//
// As kube-controller-manager's (1.37), it does not bind pods itself: each
// pod gets a required node affinity naming its node (matchFields
// metadata.name) and the scheduler binds it. What it leaves out: adopting
// orphan ControllerRevisions (orphan pods matching the selector are
// adopted, see claim.go), surge's care for pods on nodes the DaemonSet
// leaves (they go at once, see surge.go), and the
// PreferNoSchedule/compare-operator details of taint matching.
package daemonset

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
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/internal/expectations"
	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

// Name is the component name on the controller's events.
const Name = "daemonset-controller"

var controllerKind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")

// Config configures a Controller.
type Config struct {
	// Client writes pods, revisions and DaemonSet status. Required.
	Client kubernetes.Interface
	// Informers provides the DaemonSet, Pod, Node and ControllerRevision
	// caches. Required.
	Informers informers.SharedInformerFactory
	// Recorder records SuccessfulCreate/SuccessfulDelete events. Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile; default slog.Default().
	Logger *slog.Logger
	// Clock tells the time for availability (minReadySeconds) and
	// expectation expiry; default the real clock.
	Clock clock.WithTicker
	// Workers is how many DaemonSets are reconciled at once; default 2.
	Workers int
}

// Controller is the DaemonSet controller. Build it with New.
type Controller struct {
	client     kubernetes.Interface
	dsLister   appslisters.DaemonSetLister
	nodeLister corelisters.NodeLister
	revLister  appslisters.ControllerRevisionLister
	podIndexer cache.Indexer
	recorder   record.EventRecorder
	log        *slog.Logger
	clock      clock.WithTicker
	// expect holds, per DaemonSet key, the pod creations and deletions
	// sent but not yet seen in the pod cache.
	expect *expectations.Expectations
	driver *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("daemonset: Client, Informers and Recorder are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	dsInf := cfg.Informers.Apps().V1().DaemonSets()
	podInf := cfg.Informers.Core().V1().Pods()
	nodeInf := cfg.Informers.Core().V1().Nodes()
	revInf := cfg.Informers.Apps().V1().ControllerRevisions()
	if err := owner.AddIndex(podInf.Informer()); err != nil {
		return nil, err
	}
	c := &Controller{
		client: cfg.Client, dsLister: dsInf.Lister(), nodeLister: nodeInf.Lister(), revLister: revInf.Lister(),
		podIndexer: podInf.Informer().GetIndexer(), recorder: cfg.Recorder,
		log: cfg.Logger.With("controller", "daemonset"), clock: cfg.Clock, expect: expectations.New(cfg.Clock),
	}
	d, err := driver.New(driver.Config{
		Name: "daemonset", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{dsInf.Informer().HasSynced, podInf.Informer().HasSynced, nodeInf.Informer().HasSynced, revInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{dsInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: d.EnqueueObject, UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) }, DeleteFunc: c.onDaemonSetDelete,
		}},
		{podInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: c.onPodAdd, UpdateFunc: c.onPodUpdate, DeleteFunc: c.onPodDelete,
		}},
		// Any node change may change where every DaemonSet should run.
		{nodeInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: c.enqueueAll, UpdateFunc: func(_, obj any) { c.enqueueAll(obj) }, DeleteFunc: c.enqueueAll,
		}},
	}
	for _, h := range handlers {
		if _, err := h.inf.AddEventHandler(h.h); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run reconciles DaemonSets until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

func (c *Controller) onDaemonSetDelete(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.expect.Forget(key)
	}
	c.driver.EnqueueObject(obj)
}

func (c *Controller) enqueueAll(any) {
	dss, _ := c.dsLister.List(labels.Everything())
	for _, ds := range dss {
		c.driver.Enqueue(ds.Namespace + "/" + ds.Name)
	}
}

// ownerKey returns the key of the DaemonSet that controls pod.
func ownerKey(obj any) (*corev1.Pod, string, bool) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		tomb, isTomb := obj.(cache.DeletedFinalStateUnknown)
		if !isTomb {
			return nil, "", false
		}
		if pod, ok = tomb.Obj.(*corev1.Pod); !ok {
			return nil, "", false
		}
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != controllerKind.Kind || ref.APIVersion != appsv1.SchemeGroupVersion.String() {
		return pod, "", false
	}
	return pod, pod.Namespace + "/" + ref.Name, true
}

func (c *Controller) onPodAdd(obj any) {
	pod, key, ok := ownerKey(obj)
	if ok {
		c.expect.CreationObserved(key)
		c.driver.Enqueue(key)
	} else if pod != nil && metav1.GetControllerOf(pod) == nil {
		c.enqueueMatching(pod)
	}
}

// onPodUpdate counts a pod whose deletion began as deleted: it no
// longer counts, and the node waits for it to go before a replacement.
func (c *Controller) onPodUpdate(oldObj, newObj any) {
	pod, key, ok := ownerKey(newObj)
	if !ok {
		if pod != nil && metav1.GetControllerOf(pod) == nil {
			c.enqueueMatching(pod) // an orphan, or one just released
		}
		return
	}
	if old, isPod := oldObj.(*corev1.Pod); isPod && old.DeletionTimestamp == nil && pod.DeletionTimestamp != nil {
		c.expect.DeletionObserved(key, pod.Namespace+"/"+pod.Name)
	}
	c.driver.Enqueue(key)
}

func (c *Controller) onPodDelete(obj any) {
	if pod, key, ok := ownerKey(obj); ok {
		c.expect.DeletionObserved(key, pod.Namespace+"/"+pod.Name)
		c.driver.Enqueue(key)
	}
}
