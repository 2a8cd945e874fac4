package boltstore

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/miniapi/miniapi/pkg/storage"
)

// hub fans committed events out to the watchers. It never blocks: every
// send is non-blocking, and a watcher whose buffer is full is ended with
// storage.ErrWatcherTooSlow. One mutex orders everything: publishing a
// batch, registering a watcher (which copies its backlog from the history
// under the same lock, so no event is missed or sent twice), progress
// ticks and ending watchers.
type hub struct {
	buffer int

	mu       sync.Mutex
	rev      int64 // revision of the last published event
	hist     *history
	watchers map[*watcher]struct{}
	closed   bool
}

func newHub(opts Options, rev int64, events []storage.Event) *hub {
	return &hub{
		buffer:   opts.WatcherBuffer,
		rev:      rev,
		hist:     newHistory(opts.HistorySize, rev, events),
		watchers: map[*watcher]struct{}{},
	}
}

// watcher is one open watch. Its fields other than hub, prefix and ch are
// guarded by hub.mu; only the hub sends on and closes ch.
type watcher struct {
	hub    *hub
	prefix string
	ch     chan storage.Event
	// after: events at or below this revision are not sent (they were
	// before the watch's start, or in its backlog).
	after int64
	// busy: an event was sent since the last progress tick.
	busy  bool
	ended bool
	err   error
	// stopWatchingCtx undoes the context.AfterFunc that ends the watch
	// with its context.
	stopWatchingCtx func() bool
}

// Watch streams every change under prefix after fromRevision, first from
// the kept history, then live. fromRevision 0 means from now; a revision
// before the oldest kept event minus one fails with storage.ErrExpired. A
// revision beyond the current one waits for it, as in etcd.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (storage.Watcher, error) {
	if fromRevision < 0 {
		return nil, fmt.Errorf("boltstore: watch from negative revision %d", fromRevision)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.hub.watch(ctx, prefix, fromRevision)
}

func (h *hub) watch(ctx context.Context, prefix string, from int64) (*watcher, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, storage.ErrClosed
	}
	if from == 0 {
		from = h.rev
	}
	var backlog []storage.Event
	if from < h.rev {
		if oldest := h.hist.oldest(); from < oldest-1 {
			return nil, &storage.ExpiredError{Requested: from, Oldest: oldest - 1}
		}
		backlog = h.hist.since(from, prefix)
	}
	// The channel holds the whole backlog plus the live buffer, so that
	// a resumed watch is not evicted for the history it asked for.
	w := &watcher{hub: h, prefix: prefix, after: from, busy: len(backlog) > 0,
		ch: make(chan storage.Event, len(backlog)+h.buffer)}
	for _, ev := range backlog {
		w.ch <- ev
	}
	h.watchers[w] = struct{}{}
	w.stopWatchingCtx = context.AfterFunc(ctx, func() { h.end(w, nil) })
	return w, nil
}

// publish appends a committed batch to the history and offers it to every
// watcher. Called by the committer, in revision order.
func (h *hub) publish(events []storage.Event) {
	if len(events) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ev := range events {
		h.hist.append(ev)
	}
	h.rev = h.hist.last
	for w := range h.watchers {
		h.sendLocked(w, events)
	}
}

func (h *hub) sendLocked(w *watcher, events []storage.Event) {
	for _, ev := range events {
		if eventRevision(ev) <= w.after || !strings.HasPrefix(ev.KV.Key, w.prefix) {
			continue
		}
		select {
		case w.ch <- ev:
			w.busy = true
		default:
			h.endLocked(w, storage.ErrWatcherTooSlow)
			return
		}
	}
}

// progress sends a Progress event to every watcher that got nothing since
// the last call. A full buffer just skips the tick: the watcher is not
// idle then.
func (h *hub) progress() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers {
		if w.busy {
			w.busy = false
			continue
		}
		ev := storage.Event{Type: storage.Progress, KV: storage.KV{ModRevision: max(h.rev, w.after)}}
		select {
		case w.ch <- ev:
		default:
		}
	}
}

func (h *hub) end(w *watcher, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.endLocked(w, err)
}

func (h *hub) endLocked(w *watcher, err error) {
	if w.ended {
		return
	}
	w.ended, w.err = true, err
	close(w.ch)
	delete(h.watchers, w)
	if w.stopWatchingCtx != nil {
		w.stopWatchingCtx() // release the context's hold on w
	}
}

// close ends every watch with storage.ErrClosed and refuses new ones.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for w := range h.watchers {
		h.endLocked(w, storage.ErrClosed)
	}
}

// Events delivers the changes in revision order and is closed when the
// watch ends.
func (w *watcher) Events() <-chan storage.Event { return w.ch }

// Err says why the watch ended: nil for Stop or the context.
func (w *watcher) Err() error {
	w.hub.mu.Lock()
	defer w.hub.mu.Unlock()
	return w.err
}

// Stop ends the watch. Safe to call more than once.
func (w *watcher) Stop() {
	w.hub.end(w, nil)
}
