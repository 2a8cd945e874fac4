package etcd

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Watch streams the changes under prefix after fromRevision from the
// shared feed of prefix's resource, opening the feed if this is its first
// watch. fromRevision 0 starts after Revision(), the newest revision this
// store has seen, so a watch opened after a write of this store sees
// everything after it even though etcd delivers asynchronously. A
// revision the feed has passed is replayed from its ring; one before the
// ring gets a dedicated etcd watch. A compacted revision fails with an
// *storage.ExpiredError.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (storage.Watcher, error) {
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if fromRevision == 0 {
		fromRevision = s.Revision()
	} else if err := s.checkWatchable(ctx, fromRevision); err != nil {
		return nil, err
	}
	w, err := s.join(ctx, prefix, fromRevision)
	if err != nil {
		return nil, err
	}
	if err := w.waitOpened(ctx); err != nil {
		w.Stop()
		return nil, err
	}
	return w, nil
}

// waitOpened waits until etcd has created the watcher's etcd watch, as a
// watch of etcd's own client does: events written after Watch returns
// then come as they happen, not in one catch-up batch (etcd replays a
// watch that starts behind it only every 100 ms). A feed open for a while
// has long been created; the wait is bounded by RequestTimeout.
func (w *watcher) waitOpened(ctx context.Context) error {
	t := time.NewTimer(w.store.opts.RequestTimeout)
	defer t.Stop()
	select {
	case <-w.feed.opened:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("etcd watch: %w", storage.ErrTimeout)
	}
}

// join adds a watcher to the shared feed of prefix's resource, opening
// the feed at fromRevision (or now, if that is in the future) when there
// is none, or to a dedicated feed when the shared one cannot replay from
// fromRevision. Everything happens under feedsMu, so that Close, which
// sets closed under it, waits for every goroutine started here.
func (s *Store) join(ctx context.Context, prefix string, from int64) (*watcher, error) {
	s.feedsMu.Lock()
	defer s.feedsMu.Unlock()
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	key := feedKey(prefix)
	f := s.feeds[key]
	if f == nil {
		f = s.newFeed(key, min(from, s.Revision()), true, s.opts.FeedHistory)
		s.feeds[key] = f
		s.loops.Go(f.run)
	}
	w := f.add(ctx, prefix, from)
	if w == nil {
		f = s.newFeed(prefix, from, false, 0)
		w = f.add(ctx, prefix, from)
		s.loops.Go(f.run)
	}
	s.loops.Go(w.pump)
	return w, nil
}

// event converts an etcd event. A delete's KV is the value before the
// delete with the delete's revision, as the storage contract says.
func (s *Store) event(ev *clientv3.Event) storage.Event {
	var prev *storage.KV
	if ev.PrevKv != nil {
		p := s.kv(ev.PrevKv)
		prev = &p
	}
	if ev.Type == clientv3.EventTypeDelete {
		kv := s.kv(ev.Kv)
		if prev != nil {
			kv = *prev
			kv.ModRevision = ev.Kv.ModRevision
		}
		return storage.Event{Type: storage.Delete, KV: kv, PrevKV: prev}
	}
	return storage.Event{Type: storage.Put, KV: s.kv(ev.Kv), PrevKV: prev}
}
