// Package storagetest is the conformance suite every storage.Store backend
// passes. A backend's test calls Run with a function that opens its store
// on a directory; the suite reopens the same directory to test restarts:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t testing.TB, dir string, cfg storagetest.Config) storage.Store {
//			s, err := mybackend.Open(dir, cfg.HistorySize, ...)
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// The suite closes every store it opens. Its tests run in parallel, each on
// its own directory.
//
// Callers of a Store end their prefixes with "/": a prefix is a plain byte
// prefix, so "/a/b" also matches "/a/bc". The suite checks that "/a/b/" does
// not.
package storagetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Config is what one test asks of the backend. Each backend maps the knobs
// onto its own settings.
type Config struct {
	// HistorySize: at least this many past events stay watchable.
	HistorySize int
	// WatcherBuffer: a watcher that does not read is ended with
	// storage.ErrWatcherTooSlow after about this many events.
	WatcherBuffer int
	// ProgressInterval: an idle watcher gets a storage.Progress event
	// about this often.
	ProgressInterval time.Duration
}

// defaultConfig is generous so that only the tests about a limit hit it.
var defaultConfig = Config{HistorySize: 1000, WatcherBuffer: 1000, ProgressInterval: time.Hour}

// Open opens a store keeping its data in dir. Opening the same dir again
// after Close must find every key, revision and kept event.
type Open func(t testing.TB, dir string, cfg Config) storage.Store

// Run runs the whole suite against the backend that open opens.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		fn   func(*testing.T, *harness)
	}{
		{"RevisionStrictlyIncreasing", testRevisionStrictlyIncreasing},
		{"CreateGetUpdateDelete", testCreateGetUpdateDelete},
		{"FailedWritesTakeNoRevision", testFailedWritesTakeNoRevision},
		{"CancelledWriteWritesNothing", testCancelledWrite},
		{"ConcurrentWritersGetDistinctRevisions", testConcurrentWriters},
		{"PrefixIsolation", testPrefixIsolation},
		{"ListPaging", testListPaging},
		{"ListAtRevision", testListAtRevision},
		{"WatchFromNow", testWatchFromNow},
		{"WatchResumeHasNoGapOrDuplicate", testWatchResumeNoGap},
		{"WatchFromFutureRevision", testWatchFromFutureRevision},
		{"WatchStopAndContext", testWatchStopAndContext},
		{"WatchExpired", testWatchExpired},
		{"SlowWatcherIsEvicted", testSlowWatcher},
		{"ProgressEvents", testProgress},
		{"CloseEndsWatches", testCloseEndsWatches},
		{"RestartKeepsKeysAndRevisions", testRestartKeeps},
		{"RestartAfterDeleteKeepsRevision", testRestartAfterDelete},
		{"WatchResumesAcrossRestart", testWatchAcrossRestart},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, &harness{t: t, open: open, dir: t.TempDir(), cfg: defaultConfig})
		})
	}
}

// harness owns the store under test and can restart it on the same data.
type harness struct {
	t    *testing.T
	open Open
	dir  string
	cfg  Config
	s    storage.Store
}

// store opens the store on first use.
func (h *harness) store() storage.Store {
	if h.s == nil {
		h.s = h.open(h.t, h.dir, h.cfg)
		s := h.s
		h.t.Cleanup(func() { _ = s.Close() })
	}
	return h.s
}

// restart closes the store and opens it again on the same directory.
func (h *harness) restart() storage.Store {
	h.t.Helper()
	if err := h.store().Close(); err != nil {
		h.t.Fatalf("Close: %v", err)
	}
	h.s = nil
	return h.store()
}

// timeout bounds every wait in the suite; only a broken backend reaches it.
const timeout = 10 * time.Second

func ctx(t testing.TB) context.Context { return t.Context() }

func mustCreate(t testing.TB, s storage.Store, key, value string) int64 {
	t.Helper()
	rev, err := s.Create(ctx(t), key, []byte(value))
	if err != nil {
		t.Fatalf("Create(%q): %v", key, err)
	}
	return rev
}

func mustUpdate(t testing.TB, s storage.Store, key, value string, expected int64) int64 {
	t.Helper()
	rev, err := s.Update(ctx(t), key, []byte(value), expected)
	if err != nil {
		t.Fatalf("Update(%q, %d): %v", key, expected, err)
	}
	return rev
}

func mustDelete(t testing.TB, s storage.Store, key string, expected int64) storage.KV {
	t.Helper()
	kv, err := s.Delete(ctx(t), key, expected)
	if err != nil {
		t.Fatalf("Delete(%q, %d): %v", key, expected, err)
	}
	return kv
}

func mustWatch(t testing.TB, s storage.Store, prefix string, from int64) storage.Watcher {
	t.Helper()
	w, err := s.Watch(ctx(t), prefix, from)
	if err != nil {
		t.Fatalf("Watch(%q, %d): %v", prefix, from, err)
	}
	t.Cleanup(w.Stop)
	return w
}

func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

// next returns the next change event, skipping Progress events.
func next(t testing.TB, w storage.Watcher) storage.Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				t.Fatalf("watch ended early: %v", w.Err())
			}
			if ev.Type != storage.Progress {
				return ev
			}
		case <-deadline:
			t.Fatalf("no event within %v", timeout)
		}
	}
}

// waitEnd drains the watch until its channel closes and returns the
// change events it still delivered.
func waitEnd(t testing.TB, w storage.Watcher) []storage.Event {
	t.Helper()
	var got []storage.Event
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				return got
			}
			if ev.Type != storage.Progress {
				got = append(got, ev)
			}
		case <-deadline:
			t.Fatalf("watch did not end within %v", timeout)
		}
	}
}

// quiet checks that no change event arrives for a short while.
func quiet(t testing.TB, w storage.Watcher) {
	t.Helper()
	deadline := time.After(100 * time.Millisecond)
	for {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				t.Fatalf("watch ended: %v", w.Err())
			}
			if ev.Type != storage.Progress {
				t.Fatalf("unexpected event %+v", ev)
			}
		case <-deadline:
			return
		}
	}
}
