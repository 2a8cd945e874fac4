package etcd

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
)

// watcher is one open Watch on a feed. The feed appends to its queue
// without waiting; the watcher's own goroutine (pump) moves the queue to
// the events channel, and is the one that waits for a slow reader, so a
// slow watcher delays nobody else.
type watcher struct {
	store  *Store
	feed   *feed
	prefix string
	from   int64
	events chan storage.Event
	wake   chan struct{} // the queue got something (capacity 1)
	quit   chan struct{} // closed by Stop
	// releaseCtx undoes the context.AfterFunc that stops the watch
	// with the caller's context.
	releaseCtx func() bool

	stopOnce sync.Once

	mu sync.Mutex
	// after: the watcher skips feed events at or below this revision
	// (before its start, or in its backlog).
	after   int64
	queue   []storage.Event
	ending  bool  // no more events: pump finishes once the queue is out
	endErr  error // why it is ending
	stopped bool  // Stop was called or the caller's context ended
	err     error // Err, set when the events channel closes
}

// queueLimit is how many events, in WatcherBuffers, a watcher whose
// reader is behind (its channel is full) may have queued beyond its
// channel. The pump ends a watcher whose reader stalls for
// SlowWatcherGrace; this bounds its memory meanwhile. While the channel
// has room the queue is not limited: then only the pump has not run yet
// (the feed hands over a burst of buffered etcd responses at once), and
// ending the watch for that would end readers that keep up.
const queueLimit = 8

// newWatcher makes a watcher whose channel holds its whole backlog plus
// the live buffer, so that a resumed watch is not ended for the history
// it asked for.
func newWatcher(ctx context.Context, f *feed, prefix string, from, after int64, backlog []storage.Event) *watcher {
	w := &watcher{
		store: f.store, feed: f, prefix: prefix, from: from, after: after,
		events: make(chan storage.Event, len(backlog)+f.store.opts.WatcherBuffer),
		wake:   make(chan struct{}, 1),
		quit:   make(chan struct{}),
	}
	for _, ev := range backlog {
		w.events <- ev
	}
	w.releaseCtx = context.AfterFunc(ctx, w.Stop)
	return w
}

func (w *watcher) Events() <-chan storage.Event { return w.events }

func (w *watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *watcher) Stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.stopOnce.Do(func() { close(w.quit) })
}

// offer queues the events under the watcher's prefix after its start.
// Called by the feed, which must not wait: a queue over its limit ends
// the watcher instead.
func (w *watcher) offer(events []storage.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ending {
		return
	}
	limit := queueLimit * w.store.opts.WatcherBuffer
	for _, ev := range events {
		if ev.KV.ModRevision <= w.after || !strings.HasPrefix(ev.KV.Key, w.prefix) {
			continue
		}
		if len(w.queue) >= limit && len(w.events) == cap(w.events) {
			w.endLocked(storage.ErrWatcherTooSlow)
			w.queue = nil
			return
		}
		w.queue = append(w.queue, ev)
	}
	w.signal()
}

// offerProgress queues a Progress event: everything up to rev (or up to
// the watcher's start, if later) has been delivered. A full queue skips
// it: the watcher has change events to read first.
func (w *watcher) offerProgress(rev int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ending || len(w.queue) >= queueLimit*w.store.opts.WatcherBuffer {
		return
	}
	w.queue = append(w.queue, storage.Event{Type: storage.Progress, KV: storage.KV{ModRevision: max(rev, w.after)}})
	w.signal()
}

// end lets the pump deliver what is queued and then close with err.
func (w *watcher) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.endLocked(err)
}

func (w *watcher) endLocked(err error) {
	if !w.ending {
		w.ending, w.endErr = true, err
		w.signal()
	}
}

func (w *watcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// errStop ends a watcher without an error of its own: Stop, the caller's
// context, or the store closing (the etcd watch channel closed).
var errStop = errors.New("watch stopped")

// pump moves the queue to the events channel until the watcher ends.
func (w *watcher) pump() {
	w.finish(w.drain())
}

// drain is pump's loop; it returns why the watcher ended.
func (w *watcher) drain() error {
	for {
		select {
		case <-w.quit:
			return errStop
		default:
		}
		w.mu.Lock()
		batch, ending, endErr := w.queue, w.ending, w.endErr
		w.queue = nil
		w.mu.Unlock()
		for _, ev := range batch {
			if err := w.send(ev); err != nil {
				return err
			}
		}
		if len(batch) > 0 {
			continue
		}
		if ending {
			return endErr
		}
		select {
		case <-w.wake:
		case <-w.quit:
			return errStop
		case <-w.store.ctx.Done():
			return errStop
		}
	}
}

// finish records why the watch ended, leaves the feed and closes the
// events channel: a Stop or a cancelled caller is not an error, a closed
// store is ErrClosed.
func (w *watcher) finish(err error) {
	w.mu.Lock()
	w.ending = true
	w.queue = nil
	switch {
	case w.store.closed.Load():
		w.err = storage.ErrClosed
	case w.stopped:
		w.err = nil
	case err == nil, errors.Is(err, errStop):
		// The etcd watch closed without a reason: the client is gone.
		w.err = storage.ErrClosed
	default:
		w.err = err
	}
	w.mu.Unlock()
	w.feed.remove(w)
	w.releaseCtx()
	close(w.events)
}

// send puts ev on the events channel. etcd delivers in bursts, and a
// reader woken by the first event of a burst waits for the pump to yield
// the processor. So on a full buffer send first yields a few times,
// letting the reader drain it, then waits up to SlowWatcherGrace, as
// kube-apiserver's watch cache gives a blocked watcher a time budget
// before ending it. Only this watcher waits: the feed goes on queueing.
// A Progress event never waits: a full buffer has changes to read first.
func (w *watcher) send(ev storage.Event) error {
	if ev.Type == storage.Progress {
		select {
		case w.events <- ev:
		default:
		}
		return nil
	}
	for range yields {
		select {
		case w.events <- ev:
			return nil
		default:
			runtime.Gosched()
		}
	}
	grace := w.store.opts.SlowWatcherGrace
	if grace <= 0 {
		return storage.ErrWatcherTooSlow
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case w.events <- ev:
		return nil
	case <-t.C:
		return storage.ErrWatcherTooSlow
	case <-w.quit:
		return errStop
	case <-w.store.ctx.Done():
		return errStop
	}
}

// yields is how often send lets a reader run before it waits.
const yields = 3
