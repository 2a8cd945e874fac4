// Package job is the Job controller: it runs a Job's pods until enough of
// them succeeded (spec.completions) or the Job failed (too many failures
// for spec.backoffLimit, or past spec.activeDeadlineSeconds), and reports
// what it sees in the status, as kube-controller-manager's job-controller
// does in 1.37:
//
//   - pods are created from the template with generateName "<job>-", up to
//     spec.parallelism at a time, each carrying the finalizer
//     batch.kubernetes.io/job-tracking so it cannot vanish before it is
//     counted;
//   - a finished pod is counted in three steps that survive a crash at any
//     point: its uid goes into status.uncountedTerminatedPods, its finalizer
//     is removed, then it moves to status.succeeded or status.failed;
//   - a failed pod is replaced after kube's back-off (10s, doubled per
//     consecutive failure, at most 10 minutes);
//   - the Job ends with conditions in kube's order: SuccessCriteriaMet then
//     Complete, or FailureTarget then Failed (BackoffLimitExceeded or
//     DeadlineExceeded), the final one once no pod is left running;
//   - spec.suspend deletes the active pods; ttlSecondsAfterFinished deletes
//     the finished Job (kube's ttl-after-finished-controller);
//   - completionMode Indexed gives each pod a completion index
//     (indexed.go); spec.podFailurePolicy, spec.successPolicy (policy.go)
//     and spec.backoffLimitPerIndex (perindex.go) apply as in kube.
//
// podReplacementPolicy Failed is not honoured: a pod being deleted is
// replaced at once, as with TerminatingOrFailed.
package job

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/internal/expectations"
	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
	"github.com/miniapi/miniapi/pkg/controllers/internal/ownwrite"
)

// Kube's pod failure back-off for Jobs.
const (
	DefaultPodFailureBackoff = 10 * time.Second
	maxPodFailureBackoff     = 10 * time.Minute
)

// TrackingFinalizer keeps a Job's pod until the controller has counted it.
const TrackingFinalizer = "batch.kubernetes.io/job-tracking"

// orphanPrefix marks queue keys of pods whose Job is gone but which still
// carry the tracking finalizer: the controller removes it.
const orphanPrefix = "orphan-pod:"

var jobKind = batchv1.SchemeGroupVersion.WithKind("Job")

// Config configures a Controller.
type Config struct {
	// Client writes pods and Job status. Required.
	Client kubernetes.Interface
	// Informers provides the Job and Pod caches. Required.
	Informers informers.SharedInformerFactory
	// Recorder records the Job's events (SuccessfulCreate, Completed,
	// BackoffLimitExceeded…). Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile; default slog.Default().
	Logger *slog.Logger
	// Clock tells the time for startTime, deadlines, back-off and TTL;
	// default the real clock.
	Clock clock.WithTicker
	// Workers is how many Jobs are reconciled at once; default 5.
	Workers int
	// PodFailureBackoff is the first wait before a failed pod is
	// replaced; default DefaultPodFailureBackoff.
	PodFailureBackoff time.Duration
}

// Controller is the Job controller. Build it with New.
type Controller struct {
	client     kubernetes.Interface
	jobs       batchlisters.JobLister
	pods       corelisters.PodLister
	podIndexer cache.Indexer
	recorder   record.EventRecorder
	log        *slog.Logger
	clock      clock.WithTicker
	backoff    time.Duration
	// expect holds, per Job key, the pod creations and deletions sent but
	// not yet seen in the pod cache.
	expect *expectations.Expectations
	// released holds the pods whose tracking finalizer was removed but
	// whose cached copy may not show it yet (see tracking.go).
	released releasedPods
	// written holds each Job's last status write until the cache shows it
	// (ownwrite).
	written *ownwrite.Tracker
	driver  *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("job: Client, Informers and Recorder are required")
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
	if cfg.PodFailureBackoff <= 0 {
		cfg.PodFailureBackoff = DefaultPodFailureBackoff
	}
	jobInf := cfg.Informers.Batch().V1().Jobs()
	podInf := cfg.Informers.Core().V1().Pods()
	if err := owner.AddIndex(podInf.Informer()); err != nil {
		return nil, err
	}
	c := &Controller{
		client:     cfg.Client,
		jobs:       jobInf.Lister(),
		pods:       podInf.Lister(),
		podIndexer: podInf.Informer().GetIndexer(),
		recorder:   cfg.Recorder,
		log:        cfg.Logger.With("controller", "job"),
		clock:      cfg.Clock,
		backoff:    cfg.PodFailureBackoff,
		expect:     expectations.New(cfg.Clock),
		written:    ownwrite.New(),
	}
	d, err := driver.New(driver.Config{
		Name: "job", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{jobInf.Informer().HasSynced, podInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	if _, err := jobInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.EnqueueObject,
		UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) },
		DeleteFunc: c.onJobDelete,
	}); err != nil {
		return nil, err
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onPod(obj, true, false) },
		UpdateFunc: func(_, obj any) { c.onPod(obj, false, false) },
		DeleteFunc: func(obj any) { c.onPod(obj, false, true) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles Jobs until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

func (c *Controller) onJobDelete(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.expect.Forget(key)
		c.written.Forget(key)
	}
	c.driver.EnqueueObject(obj)
}

// onPod enqueues the Job that controls the pod, noting the creation or
// deletion it may have been expecting; a pod with the tracking finalizer
// whose Job is gone is queued for its finalizer to be removed.
func (c *Controller) onPod(obj any, added, deleted bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != jobKind.Kind || ref.APIVersion != jobKind.GroupVersion().String() {
		if !deleted && hasTrackingFinalizer(pod) {
			c.driver.Enqueue(orphanPrefix + pod.Namespace + "/" + pod.Name)
		}
		return
	}
	key := pod.Namespace + "/" + ref.Name
	j, err := c.jobs.Jobs(pod.Namespace).Get(ref.Name)
	if err != nil || j.UID != ref.UID {
		if !deleted && hasTrackingFinalizer(pod) {
			c.driver.Enqueue(orphanPrefix + pod.Namespace + "/" + pod.Name)
		}
		return
	}
	switch {
	case added && pod.DeletionTimestamp == nil:
		c.expect.CreationObserved(key)
	case deleted || pod.DeletionTimestamp != nil:
		c.expect.DeletionObserved(key, pod.Namespace+"/"+pod.Name)
	}
	c.driver.Enqueue(key)
}

// Reconcile brings the Job named by key ("namespace/name") one step
// closer to its end (see reconcile.go). Keys with orphanPrefix name a pod
// whose tracking finalizer is to be removed.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	if podKey, ok := strings.CutPrefix(key, orphanPrefix); ok {
		return c.releaseOrphan(ctx, podKey)
	}
	return c.reconcileJob(ctx, key)
}
