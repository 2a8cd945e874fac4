package etcd

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Watch opens one etcd watch on prefix from fromRevision+1, with the
// previous values and progress notifications. fromRevision 0 starts after
// Revision(), the newest revision this store has seen, so a watch opened
// after a write of this store sees everything after it even though the
// etcd watch is created asynchronously.
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
	// The watch lives on the store's context (Close ends it) and on the
	// caller's (AfterFunc below). RequireLeader makes etcd end the watch
	// when its member loses the cluster, instead of going quiet.
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(s.ctx))
	w := &watcher{
		store:  s,
		from:   fromRevision,
		events: make(chan storage.Event, s.opts.WatcherBuffer),
		cancel: cancel,
		done:   wctx.Done(),
	}
	ch := s.client.Watch(wctx, s.key(prefix), clientv3.WithPrefix(), clientv3.WithPrevKV(),
		clientv3.WithProgressNotify(), clientv3.WithRev(fromRevision+1))
	stopOnCaller := context.AfterFunc(ctx, w.Stop)
	s.loops.Go(func() {
		defer stopOnCaller()
		w.pump(ch)
	})
	return w, nil
}

// watcher is one open Watch: a goroutine (pump) turns etcd responses into
// events on a buffered channel.
type watcher struct {
	store  *Store
	from   int64
	events chan storage.Event
	cancel context.CancelFunc
	done   <-chan struct{} // the watch's context ended

	mu      sync.Mutex
	stopped bool // Stop was called or the caller's context ended
	err     error
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
	w.cancel()
}

// errStop ends pump without an error of its own.
var errStop = errors.New("watch stopped")

// pump delivers the responses of ch until the watch ends, then records
// why and closes the events channel.
func (w *watcher) pump(ch clientv3.WatchChan) {
	err := errStop
	for resp := range ch {
		if err = w.deliver(resp); err != nil {
			break
		}
		err = errStop
	}
	w.cancel()
	w.finish(err)
}

// finish records the end of the watch: a Stop or a cancelled caller is
// not an error, a closed store is ErrClosed.
func (w *watcher) finish(err error) {
	w.mu.Lock()
	switch {
	case w.store.closed.Load():
		w.err = storage.ErrClosed
	case w.stopped:
		w.err = nil
	case errors.Is(err, errStop):
		// etcd closed the channel without a reason: the client is
		// gone (the store's context ended).
		w.err = storage.ErrClosed
	default:
		w.err = err
	}
	w.mu.Unlock()
	close(w.events)
}

// deliver turns one etcd response into events.
func (w *watcher) deliver(resp clientv3.WatchResponse) error {
	if resp.CompactRevision != 0 {
		return &storage.ExpiredError{Requested: w.from, Oldest: resp.CompactRevision}
	}
	if err := resp.Err(); err != nil {
		return mapError(context.Background(), "watch", err)
	}
	s := w.store
	s.observe(resp.Header.Revision)
	if resp.IsProgressNotify() {
		select {
		case w.events <- storage.Event{Type: storage.Progress, KV: storage.KV{ModRevision: resp.Header.Revision}}:
		default: // a full buffer has change events to read first
		}
		return nil
	}
	for _, ev := range resp.Events {
		if !w.send(s.event(ev)) {
			return storage.ErrWatcherTooSlow
		}
	}
	return nil
}

// send queues ev. etcd delivers in bursts (the client buffers a watch's
// responses while its pump is not running), and a reader woken by the
// first event of a burst waits for the pump to yield the processor. So on
// a full buffer send first yields a few times, letting the reader drain
// it, then waits up to SlowWatcherGrace, as kube-apiserver's watch cache
// gives a blocked watcher a time budget before ending it. Waiting here
// slows no writer (the etcd client buffers the stream) and no other
// watcher.
func (w *watcher) send(ev storage.Event) bool {
	for range yields {
		select {
		case w.events <- ev:
			return true
		default:
			runtime.Gosched()
		}
	}
	grace := w.store.opts.SlowWatcherGrace
	if grace <= 0 {
		return false
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case w.events <- ev:
		return true
	case <-t.C:
		return false
	case <-w.done:
		return false
	}
}

// yields is how often send lets a reader run before it waits.
const yields = 3

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
