package driver

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// recorder is a Reconciler that fails a key a given number of times.
type recorder struct {
	mu       sync.Mutex
	calls    map[string]int
	failures map[string]int
	done     chan string
}

func (r *recorder) Reconcile(_ context.Context, key string) error {
	r.mu.Lock()
	r.calls[key]++
	fail := r.calls[key] <= r.failures[key]
	r.mu.Unlock()
	if fail && key == "ns/panicky" {
		panic("boom")
	}
	if fail {
		return errors.New("conflict")
	}
	r.done <- key
	return nil
}

func TestDriverRetriesFailedKeysAndStops(t *testing.T) {
	rec := &recorder{calls: map[string]int{}, failures: map[string]int{"ns/flaky": 3, "ns/panicky": 1}, done: make(chan string, 10)}
	d, err := New(Config{
		Name: "test", Reconciler: rec, Workers: 2, Logger: slog.New(slog.DiscardHandler),
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- d.Run(ctx) }()

	d.Enqueue("ns/flaky")
	d.Enqueue("ns/ok")
	d.Enqueue("ns/ok") // de-duplicated while waiting, or run again: either is fine
	d.Enqueue("ns/panicky")
	seen := map[string]bool{}
	for len(seen) < 3 {
		select {
		case k := <-rec.done:
			seen[k] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("keys reconciled successfully: %v; want ns/flaky (after 3 failures), ns/ok and ns/panicky (after a panic)", seen)
		}
	}
	rec.mu.Lock()
	if rec.calls["ns/flaky"] != 4 {
		t.Errorf("ns/flaky reconciled %d times, want 4 (3 failures, then success)", rec.calls["ns/flaky"])
	}
	rec.mu.Unlock()

	cancel()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Run returned %v after cancel, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := New(Config{Name: "x"}); err == nil {
		t.Error("New without a Reconciler: want an error")
	}
	if _, err := New(Config{Reconciler: &recorder{}}); err == nil {
		t.Error("New without a Name: want an error")
	}
}
