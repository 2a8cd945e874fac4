// Package controllers runs miniapi's in-process controllers. They are
// ordinary API clients: they talk to the server through client-go only
// (clientset, shared informers, listers), never to the storage, so each would
// run unchanged against a real kube-apiserver.
//
// # The contract for a controller
//
// A controller lives in its own package under pkg/controllers and has:
//
//   - an exported Config holding what it needs (a subset of Deps plus its
//     own knobs) and a constructor New(Config) (*Controller, error) that
//     validates, fills defaults and registers its informer event handlers
//     (so it must be called before the informer factory is started);
//   - one method Reconcile(ctx, key) error, level-triggered: read the latest
//     state from the listers, take the smallest next step, safe to repeat;
//   - a method Run(ctx) error that blocks until ctx is done and every
//     goroutine the controller started has ended. Run normally just calls
//     the Run of its internal/driver.Driver, which owns the workqueue,
//     workers, backoff and shutdown; no controller re-implements the queue.
//
// To add a controller, add one entry to the list in controllerList: it
// builds the controller's Config from Deps and Options.
package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/cronjob"
	"github.com/miniapi/miniapi/pkg/controllers/daemonset"
	"github.com/miniapi/miniapi/pkg/controllers/deployment"
	"github.com/miniapi/miniapi/pkg/controllers/disruption"
	"github.com/miniapi/miniapi/pkg/controllers/endpoints"
	"github.com/miniapi/miniapi/pkg/controllers/endpointslice"
	"github.com/miniapi/miniapi/pkg/controllers/garbagecollector"
	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
	"github.com/miniapi/miniapi/pkg/controllers/job"
	"github.com/miniapi/miniapi/pkg/controllers/kubelet"
	"github.com/miniapi/miniapi/pkg/controllers/namespace"
	"github.com/miniapi/miniapi/pkg/controllers/node"
	"github.com/miniapi/miniapi/pkg/controllers/replicaset"
	"github.com/miniapi/miniapi/pkg/controllers/scheduler"
	"github.com/miniapi/miniapi/pkg/controllers/serviceaccount"
	"github.com/miniapi/miniapi/pkg/controllers/statefulset"
	"github.com/miniapi/miniapi/pkg/controllers/volumeprotection"
	"github.com/miniapi/miniapi/pkg/journal"
)

// Options configure the controllers.
type Options struct {
	// Nodes is how many simulated Node objects exist.
	Nodes int
	// PodReadyDelay is how long a simulated pod takes from Pending to
	// Running/Ready, and from terminating to gone.
	PodReadyDelay time.Duration
	// PodRunDuration is how long a run-to-completion pod (restartPolicy
	// Never or OnFailure) runs once Running; 0 is the kubelet's default.
	PodRunDuration time.Duration
	// Logger receives the controllers' logs; default slog.Default().
	Logger *slog.Logger
	// Clock is the controllers' time; default the real clock. Tests pass
	// a fake one to step schedules, delays and deadlines.
	Clock clock.WithTicker
	// DiscoveryResyncPeriod is how often the garbage collector asks
	// discovery for resources served since (custom resources); 0: 30 s,
	// as kube-controller-manager.
	DiscoveryResyncPeriod time.Duration
	// Journal records every reconcile pass of every controller (the same
	// pass each logs as "reconciled ..."); nil records nothing.
	Journal *journal.Journal
}

// Controller is one running control loop.
type Controller interface {
	// Run blocks until ctx is done and the controller's goroutines have ended.
	Run(ctx context.Context) error
}

// Deps are the shared dependencies every controller is built from. One
// clientset, one informer factory (so each kind is listed and watched once,
// however many controllers read it) and one event broadcaster serve all.
type Deps struct {
	Client kubernetes.Interface
	// Metadata reads and deletes objects of any kind, custom ones too.
	Metadata  metadata.Interface
	Informers informers.SharedInformerFactory
	Logger    *slog.Logger
	Clock     clock.WithTicker
	events    record.EventBroadcaster
}

// Recorder returns an event recorder whose events name component as their
// source, as kube-controller-manager's do ("deployment-controller").
func (d Deps) Recorder(component string) record.EventRecorder {
	return d.events.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})
}

// entry is one controller in the list: a name for errors and a builder.
type entry struct {
	name  string
	build func() (Controller, error)
}

// controllerList is THE list of controllers Run starts.
func controllerList(d Deps, opts Options) []entry {
	return []entry{
		{"deployment", func() (Controller, error) {
			return deployment.New(deployment.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder("deployment-controller"),
				Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"replicaset", func() (Controller, error) {
			return replicaset.New(replicaset.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder("replicaset-controller"),
				Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"statefulset", func() (Controller, error) {
			return statefulset.New(statefulset.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder("statefulset-controller"),
				Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"daemonset", func() (Controller, error) {
			return daemonset.New(daemonset.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder(daemonset.Name), Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"job", func() (Controller, error) {
			return job.New(job.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder("job-controller"),
				Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"cronjob", func() (Controller, error) {
			return cronjob.New(cronjob.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder("cronjob-controller"),
				Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"disruption", func() (Controller, error) {
			return disruption.New(disruption.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder("controllermanager"),
				Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"node", func() (Controller, error) {
			return node.New(node.Config{Count: opts.Nodes, Client: d.Client, Informers: d.Informers, Logger: d.Logger, Clock: d.Clock})
		}},
		{"scheduler", func() (Controller, error) {
			return scheduler.New(scheduler.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder(scheduler.Name), Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"kubelet", func() (Controller, error) {
			return kubelet.New(kubelet.Config{
				Client: d.Client, Informers: d.Informers, PodReadyDelay: opts.PodReadyDelay, PodRunDuration: opts.PodRunDuration,
				Logger: d.Logger, Clock: d.Clock,
				NewRecorder: func(src corev1.EventSource) record.EventRecorder { return d.events.NewRecorder(scheme.Scheme, src) },
			})
		}},
		{"garbagecollector", func() (Controller, error) {
			return garbagecollector.New(garbagecollector.Config{
				Client: d.Client, Informers: d.Informers, Metadata: d.Metadata, Logger: d.Logger, Clock: d.Clock,
				DiscoveryResyncPeriod: opts.DiscoveryResyncPeriod,
			})
		}},
		{"namespace", func() (Controller, error) {
			return namespace.New(namespace.Config{Client: d.Client, Metadata: d.Metadata, Informers: d.Informers, Logger: d.Logger, Clock: d.Clock})
		}},
		{"volumeprotection", func() (Controller, error) {
			return volumeprotection.New(volumeprotection.Config{Client: d.Client, Informers: d.Informers, Logger: d.Logger, Clock: d.Clock})
		}},
		{"serviceaccount", func() (Controller, error) {
			return serviceaccount.New(serviceaccount.Config{Client: d.Client, Informers: d.Informers, Logger: d.Logger, Clock: d.Clock})
		}},
		{"endpoints", func() (Controller, error) {
			return endpoints.New(endpoints.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder(endpoints.Name), Logger: d.Logger, Clock: d.Clock,
			})
		}},
		{"endpointslice", func() (Controller, error) {
			return endpointslice.New(endpointslice.Config{
				Client: d.Client, Informers: d.Informers, Recorder: d.Recorder(endpointslice.EventSource), Logger: d.Logger, Clock: d.Clock,
			})
		}},
	}
}

// resyncPeriod is how often the informers replay every object to the
// handlers, so a missed event is healed without waiting for a restart.
const resyncPeriod = 10 * time.Minute

// Run starts every controller against the API server cfg points at and
// blocks until ctx is done and every controller has stopped.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	d, err := newDeps(cfg, opts)
	if err != nil {
		return err
	}
	defer d.events.Shutdown()

	var ctrls []Controller
	for _, e := range controllerList(d, opts) {
		c, err := e.build()
		if err != nil {
			return fmt.Errorf("building the %s controller: %w", e.name, err)
		}
		ctrls = append(ctrls, c)
	}
	// Start only after every controller asked for its informers.
	d.Informers.Start(ctx.Done())
	defer d.Informers.Shutdown()

	// Each controller's passes reach the journal through its Reconcile's
	// context (internal/pass says why).
	ctx = pass.WithJournal(ctx, opts.Journal)
	errs := make([]error, len(ctrls))
	var wg sync.WaitGroup
	for i, c := range ctrls {
		wg.Go(func() { errs[i] = c.Run(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func newDeps(cfg *rest.Config, opts Options) (Deps, error) {
	cfg = rest.CopyConfig(cfg)
	// kube-apiserver names a client's managedFields entries after its
	// User-Agent's product: kube-controller-manager's, as on a cluster.
	cfg.UserAgent = "kube-controller-manager/v1.37.0 (miniapi)"
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 1000, 2000
	}
	if err := keepConnections(cfg); err != nil {
		return Deps{}, fmt.Errorf("controllers: building the transport: %w", err)
	}
	if opts.Journal != nil {
		// Each pass's writes, with the resourceVersions they made.
		cfg.Wrap(pass.WrapTransport)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Deps{}, fmt.Errorf("controllers: building the client: %w", err)
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return Deps{}, fmt.Errorf("controllers: building the metadata client: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	events := record.NewBroadcaster()
	events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return Deps{
		Client:    client,
		Metadata:  meta,
		Informers: newInformers(client),
		Logger:    logger,
		Clock:     clk,
		events:    events,
	}, nil
}
