package etcdstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/etcd"
)

// The tests in this file count etcd's server-side watches through its
// /metrics (etcd_debugging_mvcc_watcher_total). That gauge is global to
// the process's embedded etcds, so these tests do not run in parallel
// and compare against the count before they opened anything.

const waitLimit = 30 * time.Second

// etcdWatches is etcd's count of open watches, read from /metrics at the
// client URL.
func etcdWatches(t testing.TB, endpoint string) int {
	t.Helper()
	resp, err := http.Get(endpoint + "/metrics")
	if err != nil {
		t.Fatalf("etcd metrics: %v", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "etcd_debugging_mvcc_watcher_total "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("etcd metrics: %q: %v", sc.Text(), err)
			}
			return int(n)
		}
	}
	t.Fatalf("etcd metrics: no etcd_debugging_mvcc_watcher_total (%v)", sc.Err())
	return 0
}

// waitWatches waits until etcd holds want watches.
func waitWatches(t *testing.T, endpoint string, want int) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		got := etcdWatches(t, endpoint)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("etcd holds %d watches, want %d", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openStore starts an etcd and opens a Store on it; both end with the test.
func openStore(t *testing.T, opts etcd.Options) (*etcd.Store, string) {
	t.Helper()
	endpoint, stop := startEtcd(t, t.TempDir())
	t.Cleanup(stop)
	opts.Endpoints = []string{endpoint}
	s, err := etcd.Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, endpoint
}

// write is one acknowledged create.
type write struct {
	key string
	rev int64
}

func create(t *testing.T, s storage.Store, key string) write {
	t.Helper()
	rev, err := s.Create(t.Context(), key, []byte("x"))
	if err != nil {
		t.Fatalf("Create(%s): %v", key, err)
	}
	return write{key, rev}
}

// expected is the revisions of the writes under prefix after from.
func expected(writes []write, prefix string, from int64) []int64 {
	var revs []int64
	for _, w := range writes {
		if w.rev > from && strings.HasPrefix(w.key, prefix) {
			revs = append(revs, w.rev)
		}
	}
	return revs
}

// receive reads n change events (skipping Progress) and returns their
// revisions; it fails if the watch ends or stalls first.
func receive(t *testing.T, w storage.Watcher, n int) []int64 {
	t.Helper()
	var revs []int64
	deadline := time.After(waitLimit)
	for len(revs) < n {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				t.Fatalf("watch ended after %d of %d events: %v", len(revs), n, w.Err())
			}
			if ev.Type != storage.Progress {
				revs = append(revs, ev.KV.ModRevision)
			}
		case <-deadline:
			t.Fatalf("got %d of %d events in %v", len(revs), n, waitLimit)
		}
	}
	return revs
}

func openWatch(t *testing.T, s storage.Store, prefix string, from int64) storage.Watcher {
	t.Helper()
	w, err := s.Watch(t.Context(), prefix, from)
	if err != nil {
		t.Fatalf("Watch(%s, %d): %v", prefix, from, err)
	}
	t.Cleanup(w.Stop)
	return w
}

// TestOneEtcdWatchPerResource: 50 watches of one resource, in every
// namespace or in one, from now or from revisions in the past, are one
// etcd watch, and each gets exactly its events in order; a second
// resource is a second etcd watch; the etcd watches end with their last
// watcher.
func TestOneEtcdWatchPerResource(t *testing.T) {
	s, endpoint := openStore(t, etcd.Options{})
	base := etcdWatches(t, endpoint)

	const resource = "/apps/deployments/"
	var writes []write
	for i := range 20 {
		writes = append(writes, create(t, s, fmt.Sprintf("%sns%d/before-%d", resource, i%5, i)))
	}
	type client struct {
		w      storage.Watcher
		prefix string
		from   int64
	}
	var clients []client
	for i := range 50 {
		prefix := resource
		if i%5 != 0 {
			prefix = fmt.Sprintf("%sns%d/", resource, i%5)
		}
		from := int64(0) // from now
		if i%2 == 0 {
			from = writes[i%len(writes)].rev // from the past
		}
		w := openWatch(t, s, prefix, from)
		if from == 0 {
			from = writes[len(writes)-1].rev
		}
		clients = append(clients, client{w, prefix, from})
	}
	for i := range 30 {
		writes = append(writes, create(t, s, fmt.Sprintf("%sns%d/after-%d", resource, i%5, i)))
	}
	pods := openWatch(t, s, "/core/pods/", 0)
	last := create(t, s, "/core/pods/default/p")

	for i, c := range clients {
		want := expected(writes, c.prefix, c.from)
		if got := receive(t, c.w, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("watch %d (%s from %d) got %v, want %v", i, c.prefix, c.from, got, want)
		}
	}
	if got := receive(t, pods, 1); got[0] != last.rev {
		t.Fatalf("pods watch got revision %d, want %d", got[0], last.rev)
	}
	// Every watch has received its events, so every etcd watch it needs
	// is open.
	got := etcdWatches(t, endpoint) - base
	t.Logf("%d watches of %s and 1 of /core/pods/: %d etcd watches", len(clients), resource, got)
	if got != 2 {
		t.Fatalf("etcd holds %d watches for 2 watched resources", got)
	}

	for _, c := range clients[1:] {
		c.w.Stop()
	}
	pods.Stop()
	waitWatches(t, endpoint, base+1)
	clients[0].w.Stop()
	waitWatches(t, endpoint, base)

	// The next watch opens a fresh feed.
	w := openWatch(t, s, resource, 0)
	next := create(t, s, resource+"ns1/again")
	if got := receive(t, w, 1); got[0] != next.rev {
		t.Fatalf("watch on a fresh feed got revision %d, want %d", got[0], next.rev)
	}
	waitWatches(t, endpoint, base+1)
}

// TestWatchReplayedFromFeedRing: a watch from a revision the feed has
// already passed gets exactly the events after it under its prefix, in
// order, from the feed's memory, without an etcd watch of its own.
func TestWatchReplayedFromFeedRing(t *testing.T) {
	s, endpoint := openStore(t, etcd.Options{})
	base := etcdWatches(t, endpoint)
	const resource = "/core/configmaps/"
	first := openWatch(t, s, resource, 0)
	var writes []write
	for i := range 30 {
		key := fmt.Sprintf("%s%s/cm-%d", resource, []string{"a", "b", "c"}[i%3], i)
		if i%4 == 0 {
			key = fmt.Sprintf("/core/secrets/a/s-%d", i) // another resource
		}
		writes = append(writes, create(t, s, key))
	}
	want := expected(writes, resource, 0)
	if got := receive(t, first, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("first watch got %v, want %v", got, want)
	}
	// The feed has delivered every write: these start behind it.
	for _, tc := range []struct {
		prefix string
		from   int64
	}{
		{resource, writes[0].rev},
		{resource + "a/", writes[3].rev},
		{resource + "b/", writes[10].rev},
		{resource + "c/", writes[28].rev},
		{resource + "a/", writes[29].rev},
	} {
		w := openWatch(t, s, tc.prefix, tc.from)
		next := create(t, s, tc.prefix+fmt.Sprintf("z-%d", tc.from))
		writes = append(writes, next)
		want := expected(writes, tc.prefix, tc.from)
		if got := receive(t, w, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("watch of %s from %d got %v, want %v", tc.prefix, tc.from, got, want)
		}
		if got := etcdWatches(t, endpoint) - base; got != 1 {
			t.Fatalf("watch of %s from %d: etcd holds %d watches, want the feed's 1", tc.prefix, tc.from, got)
		}
		w.Stop()
	}
}

// TestWatchBeforeFeedRing: a watch from before the feed's ring gets an
// etcd watch of its own and its exact events; a compacted revision still
// fails with an ExpiredError naming the compaction.
func TestWatchBeforeFeedRing(t *testing.T) {
	s, endpoint := openStore(t, etcd.Options{FeedHistory: 5})
	base := etcdWatches(t, endpoint)
	const resource = "/core/services/"
	first := openWatch(t, s, resource, 0)
	var writes []write
	for i := range 20 {
		writes = append(writes, create(t, s, fmt.Sprintf("%sns/svc-%d", resource, i)))
	}
	receive(t, first, len(writes))

	old := openWatch(t, s, resource, writes[2].rev)
	want := expected(writes, resource, writes[2].rev)
	if got := receive(t, old, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("watch from before the ring got %v, want %v", got, want)
	}
	if got := etcdWatches(t, endpoint) - base; got != 2 {
		t.Fatalf("etcd holds %d watches, want the feed's and the old watch's", got)
	}
	// Live events reach both.
	next := create(t, s, resource+"ns/svc-next")
	if got := receive(t, old, 1); got[0] != next.rev {
		t.Fatalf("old watch got revision %d, want %d", got[0], next.rev)
	}
	if got := receive(t, first, 1); got[0] != next.rev {
		t.Fatalf("first watch got revision %d, want %d", got[0], next.rev)
	}
	old.Stop()
	waitWatches(t, endpoint, base+1)

	if err := s.Compact(t.Context(), writes[10].rev); err != nil {
		t.Fatal(err)
	}
	_, err := s.Watch(t.Context(), resource, writes[1].rev)
	var expired *storage.ExpiredError
	if !errors.As(err, &expired) || expired.Requested != writes[1].rev || expired.Oldest != writes[10].rev {
		t.Fatalf("Watch from a compacted revision: %v, want an ExpiredError for %d naming %d", err, writes[1].rev, writes[10].rev)
	}
	// In the ring and not compacted: served by the feed.
	w := openWatch(t, s, resource, writes[17].rev)
	want = []int64{writes[18].rev, writes[19].rev, next.rev}
	if got := receive(t, w, len(want)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("watch from the ring after compaction got %v, want %v", got, want)
	}
}

// TestSlowWatcherLeavesFeed: a watcher that does not read is ended with
// ErrWatcherTooSlow while another on the same feed gets every event, and
// goes on after.
func TestSlowWatcherLeavesFeed(t *testing.T) {
	s, endpoint := openStore(t, etcd.Options{WatcherBuffer: 8, SlowWatcherGrace: 50 * time.Millisecond})
	base := etcdWatches(t, endpoint)
	const resource = "/core/endpoints/"
	slow := openWatch(t, s, resource+"a/", 0)
	fast := openWatch(t, s, resource, 0)
	const n = 200
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
	var writes []write
	for i := range n {
		writes = append(writes, create(t, s, fmt.Sprintf("%sa/e-%03d", resource, i)))
	}
	deadline := time.After(waitLimit)
	var delivered []int64
	for ended := false; !ended; {
		select {
		case ev, ok := <-slow.Events():
			if !ok {
				ended = true
			} else if ev.Type != storage.Progress {
				delivered = append(delivered, ev.KV.ModRevision)
			}
		case <-deadline:
			t.Fatal("slow watcher was not ended")
		}
	}
	if !errors.Is(slow.Err(), storage.ErrWatcherTooSlow) {
		t.Fatalf("slow watcher ended with %v, want ErrWatcherTooSlow", slow.Err())
	}
	if len(delivered) >= n {
		t.Fatalf("slow watcher got all %d events", n)
	}
	if want := expected(writes, resource, 0)[:len(delivered)]; fmt.Sprint(delivered) != fmt.Sprint(want) {
		t.Fatalf("slow watcher got %v, want a prefix of the writes", delivered)
	}
	select {
	case revs := <-got:
		if want := expected(writes, resource, 0); fmt.Sprint(revs) != fmt.Sprint(want) {
			t.Fatalf("fast watcher got %v (%v), want %v", revs, fast.Err(), want)
		}
	case <-time.After(waitLimit):
		t.Fatalf("fast watcher did not get all events: %v", fast.Err())
	}
	next := create(t, s, resource+"b/after")
	if got := receive(t, fast, 1); got[0] != next.rev {
		t.Fatalf("fast watcher got revision %d after the slow one left, want %d", got[0], next.rev)
	}
	if got := etcdWatches(t, endpoint) - base; got != 1 {
		t.Fatalf("etcd holds %d watches for one resource", got)
	}
}

// TestCloseEndsFeeds: Close ends every watcher with ErrClosed and every
// etcd watch the store opened, and leaves no goroutine behind (the
// embedded etcd's own come and go with the client's connection).
func TestCloseEndsFeeds(t *testing.T) {
	endpoint, stop := startEtcd(t, t.TempDir())
	t.Cleanup(stop)
	base := etcdWatches(t, endpoint)
	goroutines := runtime.NumGoroutine()
	s, err := etcd.Open(context.Background(), etcd.Options{Endpoints: []string{endpoint}, FeedHistory: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ws []storage.Watcher
	for _, prefix := range []string{"/core/pods/", "/core/pods/a/", "/core/nodes/"} {
		ws = append(ws, openWatch(t, s, prefix, 0))
	}
	a := create(t, s, "/core/pods/a/1")
	create(t, s, "/core/pods/a/2")
	receive(t, ws[1], 2)
	ws = append(ws, openWatch(t, s, "/core/pods/", a.rev-1)) // before the ring: dedicated
	receive(t, ws[3], 2)
	waitWatches(t, endpoint, base+3)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i, w := range ws {
		for range w.Events() {
		}
		if !errors.Is(w.Err(), storage.ErrClosed) {
			t.Fatalf("watch %d after Close: %v, want ErrClosed", i, w.Err())
		}
	}
	waitWatches(t, endpoint, base)
	deadline := time.Now().Add(waitLimit)
	for runtime.NumGoroutine() > goroutines {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before Open", runtime.NumGoroutine(), goroutines)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerWatchesShareEtcdWatch: 50 client-go watches of configmaps
// through bin/miniapi, in five namespaces and in all, from the list's
// resourceVersion or from an older one, add one etcd watch.
func TestServerWatchesShareEtcdWatch(t *testing.T) {
	endpoint, stop := startEtcd(t, t.TempDir())
	t.Cleanup(stop)
	_, c := startOnEtcd(t, endpoint, "--controllers=false")
	ctx := t.Context()
	var rvs []string
	for i := range 5 {
		ns := fmt.Sprintf("ns%d", i)
		if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cm, err := c.CoreV1().ConfigMaps(ns).Create(ctx, configMap("before", "1"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, cm.ResourceVersion)
	}
	base := etcdWatches(t, endpoint)
	var watches []watch.Interface
	for i := range 50 {
		ns := fmt.Sprintf("ns%d", i%5)
		if i%10 == 0 {
			ns = "" // all namespaces
		}
		w, err := c.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rvs[i%len(rvs)]})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		watches = append(watches, w)
	}
	for i := range 5 {
		if _, err := c.CoreV1().ConfigMaps(fmt.Sprintf("ns%d", i)).Create(ctx, configMap("after", "1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Each watch sees a write after it opened, so its etcd side exists.
	for i, w := range watches {
		for {
			ev := nextEvent(t, w)
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && cm.Name == "after" {
				break
			}
			if i%10 != 0 && ev.Type != watch.Added && ev.Type != watch.Bookmark {
				t.Fatalf("watch %d: unexpected %s", i, ev.Type)
			}
		}
	}
	got := etcdWatches(t, endpoint) - base
	t.Logf("50 client watches of configmaps: %d more etcd watches", got)
	if got != 1 {
		t.Fatalf("50 client watches of configmaps added %d etcd watches, want 1", got)
	}
}

func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch ended")
		}
		return ev
	case <-time.After(waitLimit):
		t.Fatalf("no watch event in %v", waitLimit)
	}
	return watch.Event{}
}
