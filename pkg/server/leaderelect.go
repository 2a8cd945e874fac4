package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// The Lease whose holder runs the controllers.
const (
	leaseNamespace = "kube-system"
	leaseName      = "miniapi-controllers"
)

// election is one candidate for the controllers' Lease.
type election struct {
	client   *rest.Config
	identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are
	// kube-controller-manager's --leader-elect-* durations.
	leaseDuration, renewDeadline, retryPeriod time.Duration
	// keepLeaseOnStop leaves the Lease held when ctx ends, as a process
	// that dies does: the next leader waits for it to expire. Only tests
	// set it.
	keepLeaseOnStop bool
	log             *slog.Logger
}

// newElection is this server's candidacy, named as kube names its
// candidates: the host name and a random suffix, so two processes on
// one host differ.
func newElection(cfg Config, client *rest.Config, log *slog.Logger) (election, error) {
	host, err := os.Hostname()
	if err != nil {
		return election{}, fmt.Errorf("naming the leader-election candidate: %w", err)
	}
	return election{
		client: client, identity: host + "_" + string(uuid.NewUUID()), log: log,
		leaseDuration: cfg.LeaderElectLeaseDuration, renewDeadline: cfg.LeaderElectRenewDeadline, retryPeriod: cfg.LeaderElectRetryPeriod,
	}, nil
}

// checkLeaderElection rejects durations the elector would refuse, with
// the flags' names. A Lease records whole seconds, so a shorter lease
// would be expired as soon as it is taken.
func checkLeaderElection(cfg Config) error {
	switch {
	case !cfg.LeaderElect:
		return nil
	case cfg.LeaderElectLeaseDuration < time.Second:
		return errors.New("--leader-elect-lease-duration must be at least 1s")
	case cfg.LeaderElectRenewDeadline >= cfg.LeaderElectLeaseDuration:
		return errors.New("--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration")
	case float64(cfg.LeaderElectRenewDeadline) <= leaderelection.JitterFactor*float64(cfg.LeaderElectRetryPeriod) || cfg.LeaderElectRetryPeriod <= 0:
		return fmt.Errorf("--leader-elect-retry-period must be positive and --leader-elect-renew-deadline more than %g times it", leaderelection.JitterFactor)
	}
	return nil
}

// runElected campaigns for the Lease until ctx ends. While it holds the
// Lease it runs run, with a context that ends when it stops holding it;
// it then waits for run to return and campaigns again. When ctx ends it
// stops run first and only then gives the Lease up, so that the next
// leader never overlaps with this one.
func runElected(ctx context.Context, e election, run func(context.Context) error) {
	for ctx.Err() == nil {
		if err := e.campaign(ctx, run); err != nil {
			e.log.Error("leader election", "err", err)
			return
		}
	}
}

// campaign runs one elector: it waits for the Lease, runs run while it
// holds it, and returns once the elector has ended.
func (e election) campaign(ctx context.Context, run func(context.Context) error) error {
	elector, leading, err := e.newElector()
	if err != nil {
		return err
	}
	// The elector's context ends only after run has returned: ending it
	// releases the Lease.
	electorCtx, stopElector := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), logr.FromSlogHandler(e.log.Handler())))
	ended := make(chan struct{})
	go func() { defer close(ended); elector.Run(electorCtx) }()
	select {
	case <-ctx.Done():
	case leaderCtx := <-leading:
		e.log.Info("leading: starting the controllers", "lease", leaseNamespace+"/"+leaseName, "identity", e.identity)
		runCtx, cancel := context.WithCancel(leaderCtx)
		stopOnDone := context.AfterFunc(ctx, cancel)
		if err := run(runCtx); err != nil && !errors.Is(err, context.Canceled) {
			e.log.Error("controllers stopped", "err", err)
		}
		stopOnDone()
		cancel()
	}
	stopElector()
	<-ended
	return nil
}

// newElector builds the elector; leading delivers the context of its
// leadership (the elector calls OnStartedLeading on a goroutine of its
// own; the buffer lets that goroutine end even if no one receives).
func (e election) newElector() (*leaderelection.LeaderElector, <-chan context.Context, error) {
	// A request may take at most half the renew deadline (at least 1 s),
	// so that one hung request does not cost the Lease.
	client := rest.CopyConfig(e.client)
	client.Timeout = max(time.Second, e.renewDeadline/2)
	client = rest.AddUserAgent(client, "leader-election")
	cs, err := kubernetes.NewForConfig(client)
	if err != nil {
		return nil, nil, err
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, leaseNamespace, leaseName, cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: e.identity})
	if err != nil {
		return nil, nil, err
	}
	leading := make(chan context.Context, 1)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, Name: leaseName, ReleaseOnCancel: !e.keepLeaseOnStop,
		LeaseDuration: e.leaseDuration, RenewDeadline: e.renewDeadline, RetryPeriod: e.retryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { leading <- ctx },
			OnStoppedLeading: func() { e.log.Info("not leading", "lease", leaseNamespace+"/"+leaseName, "identity", e.identity) },
		},
	})
	return elector, leading, err
}
