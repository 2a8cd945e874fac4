package boltstore

import (
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
)

func putEvent(rev int64, key string) storage.Event {
	return storage.Event{Type: storage.Put, KV: storage.KV{Key: key, CreateRevision: rev, ModRevision: rev}}
}

// TestWatchBetweenRecordAndFanOut opens a watch after a batch is recorded in
// the history but before the dispatcher fans it out: the watch gets the
// batch once, from its backlog, and later batches live.
func TestWatchBetweenRecordAndFanOut(t *testing.T) {
	h := newHub(Options{HistorySize: 100, WatcherBuffer: 10}.withDefaults(), 2, []storage.Event{putEvent(1, "/a"), putEvent(2, "/a")})
	defer h.close()
	batch := []storage.Event{putEvent(3, "/a"), putEvent(4, "/a")}
	h.record(batch)
	w, err := h.watch(t.Context(), "/", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	h.publish(batch)
	h.record([]storage.Event{putEvent(5, "/a")})
	h.publish([]storage.Event{putEvent(5, "/a")})
	for want := int64(2); want <= 5; want++ {
		select {
		case ev := <-w.Events():
			if ev.KV.ModRevision != want {
				t.Fatalf("got revision %d, want %d", ev.KV.ModRevision, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event %d", want)
		}
	}
	select {
	case ev := <-w.Events():
		t.Fatalf("extra event %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestProgressNeverRunsAheadOfFanOut: while a recorded batch waits for the
// dispatcher, a progress event must not claim its revisions were delivered.
func TestProgressNeverRunsAheadOfFanOut(t *testing.T) {
	h := newHub(Options{HistorySize: 100, WatcherBuffer: 10}.withDefaults(), 1, []storage.Event{putEvent(1, "/a")})
	defer h.close()
	w, err := h.watch(t.Context(), "/", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	h.record([]storage.Event{putEvent(2, "/a")})
	h.progress()
	ev := <-w.Events()
	if ev.Type != storage.Progress || ev.KV.ModRevision != 1 {
		t.Fatalf("progress before fan-out = %+v, want Progress at 1", ev)
	}
	h.publish([]storage.Event{putEvent(2, "/a")})
	if ev := <-w.Events(); ev.KV.ModRevision != 2 || ev.Type != storage.Put {
		t.Fatalf("after fan-out got %+v", ev)
	}
}
