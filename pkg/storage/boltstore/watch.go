package boltstore

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/miniapi/miniapi/pkg/storage"
)

// hub fans committed events out to the watchers. A committed batch goes
// in two steps: the committer records it in the history (before it answers
// the writers, so that a watch opened after a write returns can replay
// it), then queues it for the dispatcher goroutine, which offers it to
// every watcher while the committer goes on with the next transaction.
//
// Fan-out never waits for a watcher: every send is non-blocking, and a
// watcher whose buffer is full is ended with storage.ErrWatcherTooSlow.
// (When the dispatcher itself falls behind, the committer waits for room
// in the queue: CPU, not a slow reader, then paces the writers.)
//
// One mutex orders the rest: recording a batch, registering a watcher
// (which copies its backlog from the history and starts its live stream
// after the last recorded revision, so no event is missed or sent twice),
// fan-out, progress ticks and ending watchers.
type hub struct {
	buffer int
	queue  chan []storage.Event // recorded batches waiting for fan-out
	done   chan struct{}        // closed when the dispatcher returns

	mu       sync.Mutex
	rev      int64 // revision of the last recorded event
	sent     int64 // revision of the last event fanned out
	hist     *history
	watchers map[*watcher]struct{}
	closed   bool
}

// dispatchQueue is how many committed batches may wait for fan-out.
const dispatchQueue = 64

// newHub starts the dispatcher; close stops it.
func newHub(opts Options, rev int64, events []storage.Event) *hub {
	h := &hub{
		buffer:   opts.WatcherBuffer,
		queue:    make(chan []storage.Event, dispatchQueue),
		done:     make(chan struct{}),
		rev:      rev,
		sent:     rev,
		hist:     newHistory(opts.HistorySize, rev, events),
		watchers: map[*watcher]struct{}{},
	}
	go h.dispatch()
	return h
}

// watcher is one open watch. Its fields other than hub, prefix and ch are
// guarded by hub.mu; only the hub sends on and closes ch.
type watcher struct {
	hub    *hub
	prefix string
	ch     chan storage.Event
	// after: the live stream skips events at or below this revision
	// (they were before the watch's start, or in its backlog).
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
	after := from
	if from < h.rev {
		if oldest := h.hist.oldest(); from < oldest-1 {
			return nil, &storage.ExpiredError{Requested: from, Oldest: oldest - 1}
		}
		backlog = h.hist.since(from, prefix)
		after = h.rev
	}
	// The channel holds the whole backlog plus the live buffer, so that
	// a resumed watch is not evicted for the history it asked for.
	w := &watcher{hub: h, prefix: prefix, after: after, busy: len(backlog) > 0,
		ch: make(chan storage.Event, len(backlog)+h.buffer)}
	for _, ev := range backlog {
		w.ch <- ev
	}
	h.watchers[w] = struct{}{}
	w.stopWatchingCtx = context.AfterFunc(ctx, func() { h.end(w, nil) })
	return w, nil
}

// record appends a committed batch to the history. Called by the
// committer, in revision order, before it answers the batch's writers.
func (h *hub) record(events []storage.Event) {
	if len(events) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ev := range events {
		h.hist.append(ev)
	}
	h.rev = h.hist.last
}

// valueAt returns the value key was given at revision rev, if the
// history still holds that event.
func (h *hub) valueAt(rev int64, key string) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ev, ok := h.hist.at(rev)
	if !ok || ev.KV.Key != key {
		return nil, false
	}
	return ev.KV.Value, true
}

// publish queues a recorded batch for fan-out. Called by the committer
// after record, in revision order.
func (h *hub) publish(events []storage.Event) {
	if len(events) > 0 {
		h.queue <- events
	}
}

// dispatch offers each queued batch to every watcher, until close.
func (h *hub) dispatch() {
	defer close(h.done)
	for events := range h.queue {
		h.fanOut(events)
	}
}

func (h *hub) fanOut(events []storage.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers {
		h.sendLocked(w, events)
	}
	h.sent = eventRevision(events[len(events)-1])
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
		ev := storage.Event{Type: storage.Progress, KV: storage.KV{ModRevision: max(h.sent, w.after)}}
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

// close delivers the queued batches, stops the dispatcher, then ends every
// watch with storage.ErrClosed and refuses new ones. The committer must
// have stopped.
func (h *hub) close() {
	close(h.queue)
	<-h.done
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

// trim forgets the kept events before revision rev.
func (h *hub) trim(rev int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hist.dropBefore(rev)
}
