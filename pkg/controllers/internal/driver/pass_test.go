package driver

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"

	"github.com/miniapi/miniapi/pkg/controllers/internal/pass"
	"github.com/miniapi/miniapi/pkg/journal"
)

// loggingReconciler ends each pass with pass.Log; its first pass fails.
type loggingReconciler struct{ calls int }

func (r *loggingReconciler) Reconcile(ctx context.Context, key string) error {
	r.calls++
	pass.Log(ctx, slog.New(slog.DiscardHandler), "ConfigMap", &metav1.ObjectMeta{Namespace: "ns", Name: "a"}, "reconciled configmap", "configmap", key, "action", "write")
	if r.calls == 1 {
		return errors.New("conflict")
	}
	return nil
}

// TestDriverRecordsEachPassWithItsError: under a context carrying a
// journal, every Reconcile is one pass, named after the driver, holding
// what Reconcile returned.
func TestDriverRecordsEachPassWithItsError(t *testing.T) {
	j := journal.New(10, nil)
	d, err := New(Config{Name: "configmaps", Reconciler: &loggingReconciler{}, Workers: 1, Logger: slog.New(slog.DiscardHandler),
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(pass.WithJournal(context.Background(), j))
	stopped := make(chan error)
	go func() { stopped <- d.Run(ctx) }()
	d.Enqueue("ns/a")
	waitCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	for j.Last() < 2 {
		if err := j.Wait(waitCtx, j.Last()); err != nil {
			t.Fatalf("the journal holds %d passes, want 2 (a failure, then its retry)", j.Last())
		}
	}
	cancel()
	<-stopped
	ps, _ := j.Since(0, journal.Filter{})
	if ps[0].Controller != "configmaps" || ps[0].Error != "conflict" || ps[1].Error != "" || ps[1].Action != "write" {
		t.Errorf("passes = %+v", ps)
	}
}
