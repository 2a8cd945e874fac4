// Package ctrlruntime proves that controller-runtime (the library under
// kubebuilder and most operators) works against a real bin/miniapi
// unchanged: a manager with leader election on (the default Lease lock),
// a reconciler that owns ConfigMaps, the events v1 recorder, and
// kubebuilder's default secure metrics.
package ctrlruntime

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// ns is where the tests' objects and leases live.
const ns = "default"

// Leader election timings short enough for a test and long enough for a
// loaded two-core machine (client-go needs duration > deadline > 1.2 retry).
var (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

func TestMain(m *testing.M) {
	// controller-runtime logs through one process-wide logger; errors only,
	// so a failing test shows what the library complained about.
	log.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	os.Exit(m.Run())
}

// managerOptions are a test manager's options: leader election on with
// the default (Lease) lock in ns, the metrics server off, and controller
// names not checked for uniqueness (each test builds its own manager in
// this one process).
func managerOptions(electionID string) manager.Options {
	return manager.Options{
		LeaderElection:          true,
		LeaderElectionID:        electionID,
		LeaderElectionNamespace: ns,
		LeaseDuration:           &leaseDuration,
		RenewDeadline:           &renewDeadline,
		RetryPeriod:             &retryPeriod,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		Controller:              ctrlconfig.Controller{SkipNameValidation: ptr(true)},
	}
}

// running is a started manager.
type running struct {
	manager.Manager
	// started is when Start was called.
	started time.Time
	cancel  context.CancelFunc
	done    chan error
}

// run starts mgr in a goroutine owned by the returned value; stop (or the
// test's end) cancels it and waits for Start to return.
func run(t *testing.T, mgr manager.Manager) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Manager: mgr, started: time.Now(), cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- mgr.Start(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels the manager and fails the test if Start returned an error
// or did not return in time. Calling it again does nothing.
func (r *running) stop(t *testing.T) {
	t.Helper()
	if r.done == nil {
		return
	}
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("manager.Start returned %v after cancel; want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("manager did not stop within 30s of cancel")
	}
	r.done = nil
}

// waitElected waits until the manager leads and returns how long it took
// from Start.
func (r *running) waitElected(t *testing.T, timeout time.Duration) time.Duration {
	t.Helper()
	select {
	case <-r.Elected():
		return time.Since(r.started)
	case err := <-r.done:
		r.done = nil
		t.Fatalf("manager exited before it was elected: %v", err)
	case <-time.After(timeout):
		t.Fatalf("manager was not elected within %s", timeout)
	}
	return 0
}

// isElected reports whether the manager leads now.
func (r *running) isElected() bool {
	select {
	case <-r.Elected():
		return true
	default:
		return false
	}
}

// eventually polls cond every 50ms until it is true, fails on its error,
// and fails the test with what if timeout passes first.
func eventually(t *testing.T, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, timeout, true, cond)
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// newManager builds a manager for cfg, failing the test on error.
func newManager(t *testing.T, cfg *rest.Config, opts manager.Options) manager.Manager {
	t.Helper()
	mgr, err := manager.New(cfg, opts)
	if err != nil {
		t.Fatalf("manager.New: %v", err)
	}
	return mgr
}

func ptr[T any](v T) *T { return &v }
