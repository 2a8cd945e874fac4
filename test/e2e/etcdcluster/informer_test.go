package etcdcluster

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// seen is one event an informer's handler got: ADDED, MODIFIED, DELETED,
// or TOMBSTONE for a delete the informer only learned of by relisting
// (cache.DeletedFinalStateUnknown).
type seen struct{ typ, name, rv string }

func (s seen) String() string { return fmt.Sprintf("%s %s@%s", s.typ, s.name, s.rv) }

// recorder keeps the events an informer's handler got, in order.
type recorder struct {
	mu     sync.Mutex
	events []seen
}

func (r *recorder) add(typ string, obj any) {
	s := seen{typ: typ}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		s.name, s.rv = o.Name, o.ResourceVersion
	case cache.DeletedFinalStateUnknown:
		s.typ, s.name = "TOMBSTONE", o.Key
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, s)
}

func (r *recorder) snapshot() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.events...)
}

// configMapWatch lists and watches the ConfigMaps of namespace ns.
func configMapWatch(client kubernetes.Interface, ns string) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().ConfigMaps(ns).List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return client.CoreV1().ConfigMaps(ns).Watch(ctx, opts)
		},
	}
}

// startInformer runs a client-go informer on lw until the test ends,
// recording what its handler gets, and waits until it has synced.
func startInformer(t *testing.T, lw cache.ListerWatcher) *recorder {
	t.Helper()
	rec := &recorder{}
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { rec.add("ADDED", obj) },
		UpdateFunc: func(_, obj any) { rec.add("MODIFIED", obj) },
		DeleteFunc: func(obj any) { rec.add("DELETED", obj) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("the informer's handler got %v", rec.snapshot())
		}
	})
	syncCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync within 30 s")
	}
	return rec
}

// waitFor polls cond until it holds, failing the test with what after
// timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
