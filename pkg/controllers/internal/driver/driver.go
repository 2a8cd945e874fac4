// Package driver runs a level-triggered controller: it owns the rate-limited
// workqueue, the worker goroutines, the wait for informer caches, requeueing
// with backoff, and shutdown. A controller gives it a Reconciler and feeds it
// keys ("namespace/name") from its informer event handlers; it never touches
// the queue itself.
//
// # Basics
//
// A key in the queue means "look at this object again". The queue
// de-duplicates: a key added ten times while waiting is reconciled once, and
// a key is never processed by two workers at the same time. When Reconcile
// returns an error (a conflict, a failed write), the key is added back with
// exponential backoff per key; on success the backoff is forgotten.
//
// # Caveats
//
// Reconcile must be safe to run again at any time, with any key, including
// keys of objects that no longer exist: events can be lost, merged or
// replayed, and a resync enqueues every object periodically.
package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
)

// Reconciler closes the gap between desired and observed state for one key.
type Reconciler interface {
	Reconcile(ctx context.Context, key string) error
}

// Config configures a Driver.
type Config struct {
	// Name names the controller in logs and the queue's metrics.
	Name string
	// Reconciler is called with each key taken from the queue. Required.
	Reconciler Reconciler
	// Workers is how many keys are reconciled concurrently; default 2.
	Workers int
	// Synced are the informers' HasSynced funcs; Run waits for all of them
	// before the first Reconcile, so listers never show a partial world.
	Synced []cache.InformerSynced
	// Logger receives one line per failed reconcile; default slog.Default().
	Logger *slog.Logger
	// Clock drives the queue's delays; default the real clock.
	Clock clock.WithTicker
	// RateLimiter decides the backoff after a failed reconcile; default
	// client-go's controller rate limiter (5ms doubling to 1000s per key,
	// and 10 qps overall with a burst of 100).
	RateLimiter workqueue.TypedRateLimiter[string]
}

// Driver owns a controller's workqueue and workers.
type Driver struct {
	name    string
	rec     Reconciler
	workers int
	synced  []cache.InformerSynced
	log     *slog.Logger
	// queue holds keys waiting for a worker; a key is in it at most once.
	queue workqueue.TypedRateLimitingInterface[string]
}

// New validates cfg, fills defaults and returns a Driver whose queue already
// accepts keys (event handlers may fire before Run starts).
func New(cfg Config) (*Driver, error) {
	if cfg.Reconciler == nil {
		return nil, errors.New("driver: Reconciler is required")
	}
	if cfg.Name == "" {
		return nil, errors.New("driver: Name is required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.RateLimiter == nil {
		cfg.RateLimiter = workqueue.DefaultTypedControllerRateLimiter[string]()
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(cfg.RateLimiter,
		workqueue.TypedRateLimitingQueueConfig[string]{Name: cfg.Name, Clock: cfg.Clock})
	return &Driver{
		name:    cfg.Name,
		rec:     cfg.Reconciler,
		workers: cfg.Workers,
		synced:  cfg.Synced,
		log:     cfg.Logger.With("controller", cfg.Name),
		queue:   q,
	}, nil
}

// Enqueue asks for key to be reconciled.
func (d *Driver) Enqueue(key string) { d.queue.Add(key) }

// EnqueueAfter asks for key to be reconciled once delay has passed, for
// state that changes with time alone (minReadySeconds, deadlines).
func (d *Driver) EnqueueAfter(key string, delay time.Duration) { d.queue.AddAfter(key, delay) }

// EnqueueObject enqueues the namespace/name key of obj, which may be a
// cache.DeletedFinalStateUnknown tombstone.
func (d *Driver) EnqueueObject(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		d.log.Warn("cannot compute key", "err", err)
		return
	}
	d.queue.Add(key)
}

// Len is how many keys wait in the queue (for tests and metrics).
func (d *Driver) Len() int { return d.queue.Len() }

// Run waits for the caches, runs the workers and blocks until ctx is done
// and every worker has returned. It returns an error only if the caches
// never synced.
func (d *Driver) Run(ctx context.Context) error {
	defer d.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), d.synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s: caches did not sync", d.name)
	}
	d.log.Info("controller started", "workers", d.workers)
	ctx = pass.ForController(ctx, d.name)
	var wg sync.WaitGroup
	for range d.workers {
		wg.Go(func() {
			for d.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	d.queue.ShutDown()
	wg.Wait()
	d.log.Info("controller stopped")
	return nil
}

// processNext reconciles one key; it returns false once the queue is shut down.
func (d *Driver) processNext(ctx context.Context) bool {
	key, quit := d.queue.Get()
	if quit {
		return false
	}
	defer d.queue.Done(key)
	err := d.reconcile(ctx, key)
	switch {
	case err == nil:
		d.queue.Forget(key)
	case ctx.Err() != nil:
		// Shutting down: the next start reconciles everything anyway.
	default:
		d.log.Info("reconcile failed, will retry", "key", key,
			"retries", d.queue.NumRequeues(key), "err", err)
		d.queue.AddRateLimited(key)
	}
	return true
}

// reconcile calls the Reconciler, turning a panic into an error so that one
// bad object costs a retry with backoff, not the whole server.
func (d *Driver) reconcile(ctx context.Context, key string) (err error) {
	// The pass ends (and reaches the journal, if any) when Reconcile has
	// returned, so that it holds every write Reconcile made and its error
	// (deferred first, it runs after the recover below).
	ctx, p := pass.Begin(ctx)
	defer func() { p.End(err) }()
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("reconcile panicked", "key", key, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("reconcile of %s panicked: %v", key, r)
		}
	}()
	return d.rec.Reconcile(ctx, key)
}
