// Package replicaset is the ReplicaSet controller: it keeps spec.replicas
// pods alive for every ReplicaSet, adopting matching orphans and releasing
// pods that no longer match, and reports what it sees in the status.
//
// It behaves like kube-controller-manager's: pods are created from the
// template with generateName "<replicaset>-", in slow-start batches
// (1, 2, 4, …) so a broken template fails fast; expectations stop it from
// acting again before its own writes are back in its cache; scale-down
// deletes the pods that matter least first (see rankForDeletion).
package replicaset

import (
	"context"
	"errors"
	"log/slog"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	"github.com/miniapi/miniapi/pkg/controllers/internal/ownwrite"
)

// Config configures a Controller.
type Config struct {
	// Client writes pods and ReplicaSet status. Required.
	Client kubernetes.Interface
	// Informers provides the ReplicaSet and Pod caches. Required.
	Informers informers.SharedInformerFactory
	// Recorder records SuccessfulCreate/SuccessfulDelete events. Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile; default slog.Default().
	Logger *slog.Logger
	// Clock tells the time for availability (minReadySeconds) and
	// expectation expiry; default the real clock.
	Clock clock.WithTicker
	// Workers is how many ReplicaSets are reconciled at once; default 16.
	Workers int
	// BurstReplicas caps creations or deletions per reconcile; default 500.
	BurstReplicas int
}

// Controller is the ReplicaSet controller. Build it with New.
type Controller struct {
	client     kubernetes.Interface
	rsLister   appslisters.ReplicaSetLister
	podLister  corelisters.PodLister
	podIndexer cache.Indexer
	recorder   record.EventRecorder
	log        *slog.Logger
	clock      clock.WithTicker
	burst      int
	// expect holds, per ReplicaSet key, the pod creations and deletions
	// sent but not yet seen in the pod cache.
	expect *expectations.Expectations
	// statusWrites holds the ReplicaSets whose status was written but is
	// not yet in the cache (see ownwrite).
	statusWrites *ownwrite.Tracker
	driver       *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("replicaset: Client, Informers and Recorder are required")
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
	if cfg.BurstReplicas <= 0 {
		cfg.BurstReplicas = 500
	}
	rsInf := cfg.Informers.Apps().V1().ReplicaSets()
	podInf := cfg.Informers.Core().V1().Pods()
	if err := owner.AddIndex(podInf.Informer()); err != nil {
		return nil, err
	}
	c := &Controller{
		client:       cfg.Client,
		rsLister:     rsInf.Lister(),
		podLister:    podInf.Lister(),
		podIndexer:   podInf.Informer().GetIndexer(),
		recorder:     cfg.Recorder,
		log:          cfg.Logger.With("controller", "replicaset"),
		clock:        cfg.Clock,
		burst:        cfg.BurstReplicas,
		expect:       expectations.New(cfg.Clock),
		statusWrites: ownwrite.New(),
	}
	d, err := driver.New(driver.Config{
		Name: "replicaset", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{rsInf.Informer().HasSynced, podInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	if _, err := rsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.EnqueueObject,
		UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) },
		DeleteFunc: c.onReplicaSetDelete,
	}); err != nil {
		return nil, err
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onPodAdd,
		UpdateFunc: c.onPodUpdate,
		DeleteFunc: c.onPodDelete,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles ReplicaSets until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

func (c *Controller) onReplicaSetDelete(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.expect.Forget(key)
		c.statusWrites.Forget(key)
	}
	c.driver.EnqueueObject(obj)
}

// ownerKey returns the key of the ReplicaSet that controls pod, if that
// ReplicaSet is in the cache with the referenced UID.
func (c *Controller) ownerKey(pod *corev1.Pod) (string, bool) {
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != "ReplicaSet" || ref.APIVersion != appsv1.SchemeGroupVersion.String() {
		return "", false
	}
	rs, err := c.rsLister.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return "", false
	}
	return pod.Namespace + "/" + rs.Name, true
}

// enqueueMatching enqueues every ReplicaSet whose selector matches an
// orphan pod, so one of them can adopt it.
func (c *Controller) enqueueMatching(pod *corev1.Pod) {
	for _, rs := range matchingReplicaSets(c.rsLister, pod) {
		c.driver.Enqueue(pod.Namespace + "/" + rs.Name)
	}
}

func (c *Controller) onPodAdd(obj any) {
	pod := obj.(*corev1.Pod)
	if pod.DeletionTimestamp != nil {
		c.onPodDelete(pod)
		return
	}
	if key, ok := c.ownerKey(pod); ok {
		c.expect.CreationObserved(key)
		c.driver.Enqueue(key)
		return
	}
	c.enqueueMatching(pod)
}

func (c *Controller) onPodUpdate(oldObj, newObj any) {
	oldPod, pod := oldObj.(*corev1.Pod), newObj.(*corev1.Pod)
	if pod.ResourceVersion == oldPod.ResourceVersion {
		return // a resync: the ReplicaSet resync covers it
	}
	if pod.DeletionTimestamp != nil && oldPod.DeletionTimestamp == nil {
		// A pod being deleted no longer counts: observe the deletion now
		// so the replacement is not held back by the grace period.
		c.onPodDelete(pod)
	}
	if key, ok := c.ownerKey(oldPod); ok {
		c.driver.Enqueue(key)
	}
	if key, ok := c.ownerKey(pod); ok {
		c.driver.Enqueue(key)
		return
	}
	c.enqueueMatching(pod)
}

func (c *Controller) onPodDelete(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		tomb, isTomb := obj.(cache.DeletedFinalStateUnknown)
		if !isTomb {
			return
		}
		if pod, ok = tomb.Obj.(*corev1.Pod); !ok {
			return
		}
	}
	key, ok := c.ownerKey(pod)
	if !ok {
		return
	}
	c.expect.DeletionObserved(key, pod.Namespace+"/"+pod.Name)
	c.driver.Enqueue(key)
}
