// Package cronjob is the CronJob controller: it creates a Job from each
// CronJob's jobTemplate at every time its schedule names, as
// kube-controller-manager's cronjob-controller (v2) does:
//
//   - the Job is named "<cronjob>-<scheduled time in minutes since the
//     epoch>" (the name is the lock that keeps one schedule from starting
//     two Jobs) and annotated batch.kubernetes.io/cronjob-scheduled-timestamp;
//   - concurrencyPolicy Allow starts Jobs regardless, Forbid skips a run
//     while one is active, Replace deletes the active ones first;
//   - suspend stops new runs, startingDeadlineSeconds skips runs missed by
//     more than that;
//   - finished Jobs beyond successfulJobsHistoryLimit and
//     failedJobsHistoryLimit are deleted, oldest first;
//   - status.active, lastScheduleTime and lastSuccessfulTime say what runs
//     and what ran.
//
// Time comes from the injected clock: the controller asks to be called
// again just after the next scheduled time, so a fake clock drives it in
// tests.
package cronjob

import (
	"context"
	"errors"
	"log/slog"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/internal/owner"
)

var cronJobKind = batchv1.SchemeGroupVersion.WithKind("CronJob")

// Config configures a Controller.
type Config struct {
	// Client writes Jobs and CronJob status. Required.
	Client kubernetes.Interface
	// Informers provides the CronJob and Job caches. Required.
	Informers informers.SharedInformerFactory
	// Recorder records the CronJob's events (SuccessfulCreate,
	// SawCompletedJob…). Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile; default slog.Default().
	Logger *slog.Logger
	// Clock decides when a schedule is due; default the real clock.
	Clock clock.WithTicker
	// Workers is how many CronJobs are reconciled at once; default 5.
	Workers int
}

// Controller is the CronJob controller. Build it with New.
type Controller struct {
	client     kubernetes.Interface
	cronJobs   batchlisters.CronJobLister
	jobs       batchlisters.JobLister
	jobIndexer cache.Indexer
	recorder   record.EventRecorder
	log        *slog.Logger
	clock      clock.WithTicker
	driver     *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("cronjob: Client, Informers and Recorder are required")
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
	cjInf := cfg.Informers.Batch().V1().CronJobs()
	jobInf := cfg.Informers.Batch().V1().Jobs()
	if err := owner.AddIndex(jobInf.Informer()); err != nil {
		return nil, err
	}
	c := &Controller{
		client:     cfg.Client,
		cronJobs:   cjInf.Lister(),
		jobs:       jobInf.Lister(),
		jobIndexer: jobInf.Informer().GetIndexer(),
		recorder:   cfg.Recorder,
		log:        cfg.Logger.With("controller", "cronjob"),
		clock:      cfg.Clock,
	}
	d, err := driver.New(driver.Config{
		Name: "cronjob", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{cjInf.Informer().HasSynced, jobInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	if _, err := cjInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.EnqueueObject,
		UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := jobInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onJob,
		UpdateFunc: func(_, obj any) { c.onJob(obj) },
		DeleteFunc: c.onJob,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles CronJobs until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// onJob enqueues the CronJob that controls a Job.
func (c *Controller) onJob(obj any) {
	if key, ok := owner.ControllerKey(obj, cronJobKind); ok {
		c.driver.Enqueue(key)
	}
}
