package etcdstore

import (
	"context"
	"sync"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/etcd"
	"github.com/miniapi/miniapi/pkg/storage/storagetest"
)

// TestConformance runs the storage suite with one embedded etcd per test
// directory, so that each test owns etcd's global revision as it owns a
// bbolt file; a restart in the suite closes the Store and opens a new one
// on the same etcd.
func TestConformance(t *testing.T) {
	var (
		mu    sync.Mutex
		etcds = map[string]string{} // test dir -> endpoint
	)
	storagetest.Run(t, func(t testing.TB, dir string, cfg storagetest.Config) storage.Store {
		mu.Lock()
		endpoint, ok := etcds[dir]
		mu.Unlock()
		if !ok {
			var stop func()
			endpoint, stop = startEtcd(t, dir)
			t.Cleanup(stop)
			mu.Lock()
			etcds[dir] = endpoint
			mu.Unlock()
		}
		s, err := etcd.Open(context.Background(), etcd.Options{
			Endpoints:        []string{endpoint},
			Prefix:           "/conformance",
			WatcherBuffer:    cfg.WatcherBuffer,
			ProgressInterval: cfg.ProgressInterval,
			// The suite's WatcherBuffer is a count ("ended after about
			// this many events"): no extra time for a full buffer.
			SlowWatcherGrace: -1,
		})
		if err != nil {
			t.Fatal(err)
		}
		return &historyLimit{Store: s, size: int64(cfg.HistorySize)}
	})
}

// historyLimit gives the store a history of a number of events, as the
// suite's Config.HistorySize asks. etcd keeps history until it is
// compacted, which kube-apiserver (and miniapi) do by time, not by count,
// so the test compacts after its writes: to size revisions back, once
// size new revisions have come since the last compaction.
type historyLimit struct {
	*etcd.Store
	size int64

	mu        sync.Mutex
	compacted int64
}

func (h *historyLimit) after(ctx context.Context, rev int64) {
	target := rev - h.size
	h.mu.Lock()
	defer h.mu.Unlock()
	if target-h.compacted < h.size {
		return
	}
	if err := h.Store.Compact(ctx, target); err == nil {
		h.compacted = target
	}
}

func (h *historyLimit) Create(ctx context.Context, key string, value []byte) (int64, error) {
	rev, err := h.Store.Create(ctx, key, value)
	if err == nil {
		h.after(ctx, rev)
	}
	return rev, err
}

func (h *historyLimit) Update(ctx context.Context, key string, value []byte, expected int64) (int64, error) {
	rev, err := h.Store.Update(ctx, key, value, expected)
	if err == nil {
		h.after(ctx, rev)
	}
	return rev, err
}

func (h *historyLimit) Delete(ctx context.Context, key string, expected int64) (storage.KV, error) {
	kv, err := h.Store.Delete(ctx, key, expected)
	if err == nil {
		h.after(ctx, kv.ModRevision)
	}
	return kv, err
}
