package etcd

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/pkg/storage"
)

// The tests here drive a feed with a watch channel of their own instead
// of etcd's, for what a live etcd cannot be made to do on cue. The fan-out
// against a real etcd is tested in test/e2e/etcdstore.

// offlineStore is a Store without a client, enough for feeds fed by hand.
func offlineStore(t *testing.T) *Store {
	opts := Options{Endpoints: []string{"unused"}, WatcherBuffer: 16}
	opts.fill()
	s := &Store{opts: opts, log: opts.Logger, prefix: opts.Prefix, feeds: map[string]*feed{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() {
		s.cancel()
		s.loops.Wait()
	})
	return s
}

// handFed opens the shared feed of key at start, fed by the returned
// channel, which the test's end closes as etcd's client would.
func handFed(t *testing.T, s *Store, key string, start int64) chan clientv3.WatchResponse {
	ch := make(chan clientv3.WatchResponse)
	t.Cleanup(func() { close(ch) })
	f := s.newFeed(key, start, true, 100)
	s.feeds[key] = f
	close(f.opened)
	s.loops.Go(func() { f.follow(ch) })
	return ch
}

func put(s *Store, key string, rev int64) clientv3.WatchResponse {
	return clientv3.WatchResponse{
		Header: &pb.ResponseHeader{Revision: rev},
		Events: []*clientv3.Event{{Type: mvccpb.PUT, Kv: &mvccpb.KeyValue{
			Key: []byte(s.key(key)), Value: []byte("x"), CreateRevision: rev, ModRevision: rev,
		}}},
	}
}

// ended drains w until it closes and returns the change revisions.
func ended(t *testing.T, w storage.Watcher) []int64 {
	t.Helper()
	var revs []int64
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				return revs
			}
			if ev.Type != storage.Progress {
				revs = append(revs, ev.KV.ModRevision)
			}
		case <-deadline:
			t.Fatal("watch did not end")
		}
	}
}

// TestFeedFailureEndsEveryWatcher: when the feed's etcd watch fails
// (here: etcd compacted what it still had to send), every watcher of it
// gets the events before the failure and then the error, as its own
// ExpiredError; the store forgets the feed, so the next Watch opens a
// fresh one.
func TestFeedFailureEndsEveryWatcher(t *testing.T) {
	s := offlineStore(t)
	ch := handFed(t, s, "/core/pods/", 10)
	a, err := s.join(t.Context(), "/core/pods/", 10)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.join(t.Context(), "/core/pods/ns/", 11)
	if err != nil {
		t.Fatal(err)
	}
	ch <- put(s, "/core/pods/ns/p", 11)
	ch <- put(s, "/core/pods/other/q", 12)
	ch <- put(s, "/core/pods/ns/r", 13)
	ch <- clientv3.WatchResponse{CompactRevision: 20}

	if got, want := fmt.Sprint(ended(t, a)), "[11 12 13]"; got != want {
		t.Errorf("watcher a got %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(ended(t, b)), "[13]"; got != want {
		t.Errorf("watcher b got %s, want %s", got, want)
	}
	for name, w := range map[string]struct {
		w    storage.Watcher
		from int64
	}{"a": {a, 10}, "b": {b, 11}} {
		var expired *storage.ExpiredError
		if !errors.As(w.w.Err(), &expired) || expired.Requested != w.from || expired.Oldest != 20 {
			t.Errorf("watcher %s ended with %v, want an ExpiredError for %d naming 20", name, w.w.Err(), w.from)
		}
	}
	s.feedsMu.Lock()
	defer s.feedsMu.Unlock()
	if len(s.feeds) != 0 {
		t.Errorf("store still has feeds %v after the failure", s.feeds)
	}
}

// TestFeedProgressReachesEveryWatcher: a progress notification becomes a
// Progress event for each watcher, never below the watcher's start.
func TestFeedProgressReachesEveryWatcher(t *testing.T) {
	s := offlineStore(t)
	ch := handFed(t, s, "/core/pods/", 10)
	a, _ := s.join(t.Context(), "/core/pods/", 10)
	b, _ := s.join(t.Context(), "/core/pods/ns/", 30)
	ch <- clientv3.WatchResponse{Header: &pb.ResponseHeader{Revision: 25}} // no events: progress
	for name, tc := range map[string]struct {
		w    storage.Watcher
		want int64
	}{"a": {a, 25}, "b": {b, 30}} {
		select {
		case ev := <-tc.w.Events():
			if ev.Type != storage.Progress || ev.KV.ModRevision != tc.want {
				t.Errorf("watcher %s got %+v, want Progress at %d", name, ev, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("watcher %s got no progress event", name)
		}
	}
	if s.Revision() != 25 {
		t.Errorf("Revision() = %d after a progress at 25", s.Revision())
	}
}

// TestRingFloor: the ring holds every event after its floor; evicting an
// event raises the floor to that event's revision.
func TestRingFloor(t *testing.T) {
	r := newRing(3, 5)
	for rev := int64(6); rev <= 10; rev++ {
		r.push(storage.Event{KV: storage.KV{Key: fmt.Sprintf("/k/%d", rev%2), ModRevision: rev}})
	}
	if r.floor != 7 {
		t.Fatalf("floor %d after keeping 8..10 of 6..10, want 7", r.floor)
	}
	revs := func(evs []storage.Event) (out []int64) {
		for _, ev := range evs {
			out = append(out, ev.KV.ModRevision)
		}
		return out
	}
	if got := fmt.Sprint(revs(r.since(7, "/k/"))); got != "[8 9 10]" {
		t.Errorf("since(7) = %s", got)
	}
	if got := fmt.Sprint(revs(r.since(8, "/k/0"))); got != "[10]" {
		t.Errorf("since(8, /k/0) = %s", got)
	}
	none := newRing(0, 5)
	none.push(storage.Event{KV: storage.KV{ModRevision: 6}})
	if none.floor != 6 || len(none.since(5, "")) != 0 {
		t.Errorf("an empty ring keeps events or floor %d", none.floor)
	}
}

func TestFeedKey(t *testing.T) {
	for prefix, want := range map[string]string{
		"/core/pods/":                "/core/pods/",
		"/core/pods/default/":        "/core/pods/",
		"/apps/deployments/ns/name":  "/apps/deployments/",
		"/w/":                        "/w/",
		"/a/b":                       "/a/b",
		"":                           "",
		"/example.com/things/a/b/c/": "/example.com/things/",
	} {
		if got := feedKey(prefix); got != want {
			t.Errorf("feedKey(%q) = %q, want %q", prefix, got, want)
		}
	}
}
