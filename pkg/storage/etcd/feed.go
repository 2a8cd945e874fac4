package etcd

import (
	"context"
	"errors"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/pkg/storage"
)

// feed is one etcd watch on a key prefix, fanned out to the store's
// watchers under that prefix. A shared feed (in Store.feeds) serves every
// watch of one resource and keeps a ring of its recent events; a
// dedicated feed serves one watch that starts before the shared feed's
// ring, as every watch did before feeds.
//
// The feed's goroutine (run) never waits for a watcher: it appends to
// each watcher's queue, and each watcher's own goroutine delivers (see
// watcher.go). Lock order: Store.feedsMu, feed.mu, watcher.mu.
type feed struct {
	store  *Store
	key    string // store key prefix the etcd watch covers
	shared bool
	start  int64 // the etcd watch starts after this revision
	ctx    context.Context
	cancel context.CancelFunc // ends the etcd watch
	opened chan struct{}      // closed once etcd has created the watch (or refused it)

	mu       sync.Mutex
	last     int64 // every event up to last has been received
	ring     ring
	watchers map[*watcher]struct{}
	ended    bool // no watcher may join any more
}

// feedKey is the part of a watched prefix that names a resource. The API
// server's keys are "/<group>/<resource>/[<namespace>/]<name>", so it is
// the prefix up to its third "/": watches of one resource in every
// namespace, or in one, share the feed of "/<group>/<resource>/". A
// shorter prefix is its own feed. Either way the feed key is a prefix of
// the watched prefix, so the feed sees every key the watch asks for.
func feedKey(prefix string) string {
	n := 0
	for i := range len(prefix) {
		if prefix[i] == '/' {
			if n++; n == 3 {
				return prefix[:i+1]
			}
		}
	}
	return prefix
}

// newFeed prepares a feed of the keys under key after revision start;
// the caller starts run. RequireLeader makes etcd end the watch when its
// member loses the cluster, instead of going quiet; the store's progress
// requests carry the same metadata, so they reach this watch's stream.
func (s *Store) newFeed(key string, start int64, shared bool, history int) *feed {
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(s.ctx))
	return &feed{
		store: s, key: key, shared: shared, start: start, ctx: ctx, cancel: cancel, opened: make(chan struct{}),
		last: start, ring: newRing(history, start), watchers: map[*watcher]struct{}{},
	}
}

// add registers a watcher of prefix from revision from, with the kept
// events after from as its backlog. It answers nil when from is older
// than what the feed can replay (or the feed has ended).
func (f *feed) add(ctx context.Context, prefix string, from int64) *watcher {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended || from < f.ring.floor {
		return nil
	}
	var backlog []storage.Event
	after := from
	if from < f.last {
		backlog, after = f.ring.since(from, prefix), f.last
	}
	w := newWatcher(ctx, f, prefix, from, after, backlog)
	f.watchers[w] = struct{}{}
	return w
}

// run opens the etcd watch and follows it. The client's Watch returns
// once etcd has created the watch, which Store.Watch waits for.
func (f *feed) run() {
	s := f.store
	ch := s.client.Watch(f.ctx, s.key(f.key), clientv3.WithPrefix(), clientv3.WithPrevKV(),
		clientv3.WithProgressNotify(), clientv3.WithRev(f.start+1))
	close(f.opened)
	f.follow(ch)
}

// follow fans the responses of ch out until the watch fails or is
// cancelled, then ends the watchers still there.
func (f *feed) follow(ch clientv3.WatchChan) {
	err := errStop
	for resp := range ch {
		if err = f.deliver(resp); err != nil {
			break
		}
		err = errStop
	}
	f.cancel()
	f.end(err)
}

// deliver fans one etcd response out.
func (f *feed) deliver(resp clientv3.WatchResponse) error {
	if resp.CompactRevision != 0 {
		return &storage.ExpiredError{Requested: f.start, Oldest: resp.CompactRevision}
	}
	if err := resp.Err(); err != nil {
		return mapError(context.Background(), "watch", err)
	}
	s := f.store
	s.observe(resp.Header.Revision)
	if resp.IsProgressNotify() {
		f.progress(resp.Header.Revision)
		return nil
	}
	if len(resp.Events) == 0 {
		return nil
	}
	events := make([]storage.Event, len(resp.Events))
	for i, ev := range resp.Events {
		events[i] = s.event(ev)
	}
	f.publish(events)
	return nil
}

// publish keeps events in the ring and queues them for every watcher.
func (f *feed) publish(events []storage.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ev := range events {
		f.ring.push(ev)
	}
	f.last = events[len(events)-1].KV.ModRevision
	for w := range f.watchers {
		w.offer(events)
	}
}

// progress tells every watcher that the feed has delivered everything up
// to rev (etcd answered a progress request, see requestProgress).
func (f *feed) progress(rev int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = max(f.last, rev)
	for w := range f.watchers {
		w.offerProgress(rev)
	}
}

// remove lets a finished watcher go; the last one out closes the feed,
// so that the next Watch of the resource opens a fresh one.
func (f *feed) remove(w *watcher) {
	s := f.store
	s.feedsMu.Lock()
	defer s.feedsMu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.watchers, w)
	if len(f.watchers) > 0 || f.ended {
		return
	}
	f.ended = true
	f.forgetLocked()
	f.cancel()
}

// end closes the feed after its etcd watch stopped and ends its watchers
// with err, each with its own ExpiredError when etcd compacted the
// revisions the feed still had to read.
func (f *feed) end(err error) {
	s := f.store
	s.feedsMu.Lock()
	f.forgetLocked()
	s.feedsMu.Unlock()

	f.mu.Lock()
	f.ended = true
	watchers := f.watchers
	f.watchers = map[*watcher]struct{}{}
	f.mu.Unlock()
	for w := range watchers {
		w.end(errFor(err, w.from))
	}
}

// forgetLocked takes the feed out of the store's map (s.feedsMu held).
func (f *feed) forgetLocked() {
	if f.shared && f.store.feeds[f.key] == f {
		delete(f.store.feeds, f.key)
	}
}

// errFor is the feed's error as one watcher reports it.
func errFor(err error, from int64) error {
	var expired *storage.ExpiredError
	if errors.As(err, &expired) {
		return &storage.ExpiredError{Requested: from, Oldest: expired.Oldest}
	}
	return err
}
