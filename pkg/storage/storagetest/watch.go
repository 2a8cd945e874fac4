package storagetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
)

func checkEvent(t testing.TB, got storage.Event, typ storage.EventType, kv storage.KV, prev *storage.KV) {
	t.Helper()
	if got.Type != typ {
		t.Fatalf("event type %v, want %v (%+v)", got.Type, typ, got)
	}
	checkKV(t, "event KV", got.KV, kv)
	switch {
	case prev == nil && got.PrevKV != nil:
		t.Fatalf("event PrevKV %+v, want none", *got.PrevKV)
	case prev != nil && got.PrevKV == nil:
		t.Fatalf("event without PrevKV, want %+v", *prev)
	case prev != nil:
		checkKV(t, "event PrevKV", *got.PrevKV, *prev)
	}
}

func testWatchFromNow(t *testing.T, h *harness) {
	s := h.store()
	mustCreate(t, s, "/w/before", "old news")
	w := mustWatch(t, s, "/w/", 0)
	r1 := mustCreate(t, s, "/w/a", "v1")
	r2 := mustUpdate(t, s, "/w/a", "v2", r1)
	r3 := mustDelete(t, s, "/w/a", r2).ModRevision

	v1 := storage.KV{Key: "/w/a", Value: []byte("v1"), CreateRevision: r1, ModRevision: r1}
	v2 := storage.KV{Key: "/w/a", Value: []byte("v2"), CreateRevision: r1, ModRevision: r2}
	checkEvent(t, next(t, w), storage.Put, v1, nil)
	checkEvent(t, next(t, w), storage.Put, v2, &v1)
	gone := v2
	gone.ModRevision = r3
	checkEvent(t, next(t, w), storage.Delete, gone, &v2)
	quiet(t, w)
}

// testWatchResumeNoGap opens a watch from an older revision while writers
// are busy on the watched prefix and another one, and checks that it gets
// exactly the acknowledged writes under its prefix after that revision, in
// order: the history replay and the live stream meet without a gap or a
// duplicate.
func testWatchResumeNoGap(t *testing.T, h *harness) {
	s := h.store()
	for i := range 10 {
		mustCreate(t, s, fmt.Sprintf("/g/pre%d", i), "x")
	}
	var (
		mu    sync.Mutex
		acked = map[int64]bool{} // revision -> under /g/
		wg    sync.WaitGroup
	)
	started := make(chan struct{})
	for wr := range 4 {
		wg.Go(func() {
			for i := range 60 {
				if i == 20 && wr == 0 {
					close(started)
				}
				prefix := "/g/"
				if i%3 == 0 {
					prefix = "/h/"
				}
				rev, err := s.Create(ctx(t), fmt.Sprintf("%sw%d-%d", prefix, wr, i), []byte("x"))
				if err != nil {
					t.Errorf("Create: %v", err)
					return
				}
				mu.Lock()
				acked[rev] = prefix == "/g/"
				mu.Unlock()
			}
		})
	}
	<-started
	from := s.Revision() - 15
	w := mustWatch(t, s, "/g/", from)
	wg.Wait()
	var want []int64
	for rev := from + 1; rev <= s.Revision(); rev++ {
		if acked[rev] {
			want = append(want, rev)
		}
	}
	for i, rev := range want {
		ev := next(t, w)
		if ev.KV.ModRevision != rev {
			t.Fatalf("event %d has revision %d, want %d", i, ev.KV.ModRevision, rev)
		}
	}
	quiet(t, w)
}

// testWatchFromFutureRevision: a watch from a revision the store has not
// reached yet starts after it, as in etcd. (The API server relies on this
// when a list was read at a revision the watch side has not seen yet.)
func testWatchFromFutureRevision(t *testing.T, h *harness) {
	s := h.store()
	cur := s.Revision()
	w := mustWatch(t, s, "/fu/", cur+2)
	mustCreate(t, s, "/fu/a", "x")
	mustCreate(t, s, "/fu/b", "x")
	r3 := mustCreate(t, s, "/fu/c", "x")
	if ev := next(t, w); ev.KV.ModRevision != r3 || ev.KV.Key != "/fu/c" {
		t.Fatalf("first event %s@%d, want /fu/c@%d", ev.KV.Key, ev.KV.ModRevision, r3)
	}
	quiet(t, w)
}

func testWatchStopAndContext(t *testing.T, h *harness) {
	s := h.store()
	w := mustWatch(t, s, "/st/", 0)
	w.Stop()
	waitEnd(t, w)
	if err := w.Err(); err != nil {
		t.Fatalf("Err after Stop = %v, want nil", err)
	}
	w.Stop()

	c, cancel := context.WithCancel(ctx(t))
	w2, err := s.Watch(c, "/st/", 0)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	cancel()
	waitEnd(t, w2)
	if err := w2.Err(); err != nil {
		t.Fatalf("Err after cancel = %v, want nil", err)
	}
	// The store goes on after watches end.
	mustCreate(t, s, "/st/a", "x")
}

func testWatchExpired(t *testing.T, h *harness) {
	h.cfg.HistorySize = 5
	s := h.store()
	for i := range 20 {
		mustCreate(t, s, fmt.Sprintf("/e/%02d", i), "x")
	}
	cur := s.Revision()
	_, err := s.Watch(ctx(t), "/e/", 1)
	wantErr(t, "Watch from before the history", err, storage.ErrExpired)
	var expired *storage.ExpiredError
	if !errors.As(err, &expired) || expired.Requested != 1 || expired.Oldest <= 1 || expired.Oldest > cur-5 {
		t.Fatalf("Watch(1) error %#v, want an ExpiredError for 1 naming an oldest in (1, %d]", err, cur-5)
	}
	// The oldest revision the error names is watchable.
	mustWatch(t, s, "/e/", expired.Oldest).Stop()

	w := mustWatch(t, s, "/e/", cur-5)
	for rev := cur - 4; rev <= cur; rev++ {
		if ev := next(t, w); ev.KV.ModRevision != rev {
			t.Fatalf("replayed revision %d, want %d", ev.KV.ModRevision, rev)
		}
	}
	w.Stop()
	mustWatch(t, s, "/e/", cur)
	mustWatch(t, s, "/e/", 0)

	s = h.restart()
	_, err = s.Watch(ctx(t), "/e/", 1)
	wantErr(t, "Watch from before the history after restart", err, storage.ErrExpired)
}

// testSlowWatcher: a watcher that never reads is ended with
// ErrWatcherTooSlow, while the writers and a reading watcher go on.
func testSlowWatcher(t *testing.T, h *harness) {
	h.cfg.WatcherBuffer = 8
	s := h.store()
	slow := mustWatch(t, s, "/slow/", 0)
	fast := mustWatch(t, s, "/slow/", 0)
	const n = 100
	got := make(chan []int64, 1)
	go func() {
		var revs []int64
		for ev := range fast.Events() {
			if ev.Type != storage.Progress {
				revs = append(revs, ev.KV.ModRevision)
			}
			if len(revs) == n {
				break
			}
		}
		got <- revs
	}()
	var acked []int64
	for i := range n {
		c, cancel := context.WithTimeout(ctx(t), timeout)
		rev, err := s.Create(c, fmt.Sprintf("/slow/%03d", i), []byte("x"))
		cancel()
		if err != nil {
			t.Fatalf("write %d blocked or failed: %v", i, err)
		}
		acked = append(acked, rev)
	}
	delivered := waitEnd(t, slow)
	wantErr(t, "slow watcher", slow.Err(), storage.ErrWatcherTooSlow)
	if len(delivered) >= n {
		t.Fatalf("slow watcher got all %d events and was still ended", n)
	}
	for i, ev := range delivered {
		if ev.KV.ModRevision != acked[i] {
			t.Fatalf("slow watcher event %d at revision %d, want %d", i, ev.KV.ModRevision, acked[i])
		}
	}
	select {
	case revs := <-got:
		if fmt.Sprint(revs) != fmt.Sprint(acked) {
			t.Fatalf("fast watcher got %v, want %v", revs, acked)
		}
	case <-time.After(timeout):
		t.Fatalf("fast watcher did not get all events: %v", fast.Err())
	}
}

func testProgress(t *testing.T, h *harness) {
	h.cfg.ProgressInterval = 20 * time.Millisecond
	s := h.store()
	w := mustWatch(t, s, "/p/", 0)
	rev := mustCreate(t, s, "/q/elsewhere", "x")
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				t.Fatalf("watch ended: %v", w.Err())
			}
			if ev.Type != storage.Progress {
				t.Fatalf("change event %+v for another prefix", ev)
			}
			if ev.KV.ModRevision >= rev {
				return
			}
		case <-deadline:
			t.Fatalf("no progress event at revision %d within %v", rev, timeout)
		}
	}
}

func testCloseEndsWatches(t *testing.T, h *harness) {
	s := h.store()
	w := mustWatch(t, s, "/c/", 0)
	mustCreate(t, s, "/c/a", "x")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := waitEnd(t, w); len(got) > 1 {
		t.Fatalf("watch delivered %d events for one write", len(got))
	}
	wantErr(t, "watch after Close", w.Err(), storage.ErrClosed)
	_, err := s.Create(ctx(t), "/c/b", []byte("x"))
	wantErr(t, "Create after Close", err, storage.ErrClosed)
	_, err = s.Get(ctx(t), "/c/a")
	wantErr(t, "Get after Close", err, storage.ErrClosed)
	_, err = s.List(ctx(t), "/c/", storage.ListOptions{})
	wantErr(t, "List after Close", err, storage.ErrClosed)
	_, err = s.Watch(ctx(t), "/c/", 0)
	wantErr(t, "Watch after Close", err, storage.ErrClosed)
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
