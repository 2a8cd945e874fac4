package boltstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
)

// TestPreviousValuesSurviveTrimAndReopen writes a few keys many times with
// a short history, so that trimming deletes the events that kept events
// take their previous values from (prevAt), concurrently so that one
// transaction both refers to and trims. Every kept event must still show
// the value its key had before it, live, after a reopen, after a reopen
// with a shorter history, and after a compaction that trims it.
func TestPreviousValuesSurviveTrimAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path, Options{HistorySize: 16})
	must(t, err)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			key := fmt.Sprintf("/k/%d", w)
			rev, err := s.Create(ctx, key, []byte("0"))
			must(t, err)
			for i := 1; i <= 60; i++ {
				if rand.IntN(10) == 0 {
					_, err := s.Delete(ctx, key, rev)
					must(t, err)
					rev, err = s.Create(ctx, key, []byte("0"))
					must(t, err)
					continue
				}
				rev, err = s.Update(ctx, key, []byte(fmt.Sprint(i)), rev)
				must(t, err)
			}
		})
	}
	wg.Wait()
	checkPrevValues(t, s, 16)
	must(t, s.Close())

	for _, size := range []int{16, 5} {
		s, err = Open(path, Options{HistorySize: size})
		must(t, err)
		checkPrevValues(t, s, size)
		must(t, s.Close())
	}

	// A compaction that trims the history keeps the same promise.
	s, err = Open(path, Options{HistorySize: 16})
	must(t, err)
	defer s.Close()
	if _, err := s.Compact(ctx, storage.CompactOptions{KeepHistory: 3}); err != nil {
		t.Fatal(err)
	}
	checkPrevValues(t, s, 3)
}

// checkPrevValues replays the kept history from its start and checks each
// event's previous value against the key's value in the event before it.
func checkPrevValues(t *testing.T, s *Store, size int) {
	t.Helper()
	from := s.Revision() - int64(size)
	w, err := s.Watch(t.Context(), "/k/", from)
	if err != nil {
		t.Fatalf("watch from %d: %v", from, err)
	}
	defer w.Stop()
	last := map[string]storage.KV{}
	atFrom := map[string]*storage.KV{} // each key's value at from, from its first event after
	for seen := 0; seen < size; seen++ {
		var ev storage.Event
		select {
		case ev = <-w.Events():
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d events", seen, size)
		}
		before, known := last[ev.KV.Key]
		switch {
		case ev.PrevKV == nil && ev.Type == storage.Put && ev.KV.CreateRevision != ev.KV.ModRevision:
			t.Fatalf("update at %d lost its previous value", ev.KV.ModRevision)
		case ev.PrevKV != nil && known && string(ev.PrevKV.Value) != string(before.Value):
			t.Fatalf("event %d: previous value %q, but %s was %q", ev.KV.ModRevision, ev.PrevKV.Value, ev.KV.Key, before.Value)
		case ev.PrevKV != nil && known && ev.PrevKV.ModRevision != before.ModRevision:
			t.Fatalf("event %d: previous revision %d, want %d", ev.KV.ModRevision, ev.PrevKV.ModRevision, before.ModRevision)
		}
		if _, ok := atFrom[ev.KV.Key]; !ok {
			atFrom[ev.KV.Key] = ev.PrevKV
		}
		last[ev.KV.Key] = ev.KV
	}
	// A list at the oldest revision the history reaches rebuilds every
	// key from those previous values, read from disk.
	res, err := s.List(t.Context(), "/k/", storage.ListOptions{Revision: from})
	if err != nil {
		t.Fatalf("list at %d: %v", from, err)
	}
	listed := map[string]string{}
	for _, kv := range res.KVs {
		listed[kv.Key] = string(kv.Value)
	}
	for key, prev := range atFrom {
		got, ok := listed[key]
		if prev == nil && ok || prev != nil && got != string(prev.Value) {
			t.Fatalf("list at %d: %s is %q (listed %v), its next event says %v", from, key, got, ok, prev)
		}
	}
}

// TestHistoryInMemoryHoldsEachValueOnce: an update's previous value in the
// in-memory history is the bytes of the event that wrote it, not a copy.
func TestHistoryInMemoryHoldsEachValueOnce(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), Options{})
	ctx := t.Context()
	r1, err := s.Create(ctx, "/k/a", []byte("one"))
	must(t, err)
	r2, err := s.Update(ctx, "/k/a", []byte("two"), r1)
	must(t, err)
	first, _ := s.hub.hist.at(r1)
	second, _ := s.hub.hist.at(r2)
	if second.PrevKV == nil || &second.PrevKV.Value[0] != &first.KV.Value[0] {
		t.Fatal("the update's previous value is a copy of the create's value")
	}
}
