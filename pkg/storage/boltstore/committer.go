package boltstore

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Group commit. One goroutine, the committer, owns every write: it takes
// all queued ops (up to MaxBatch), applies them in arrival order in one
// db.Update — each op sees the effects of the ones before it and fails
// alone when its check fails — commits once (bbolt syncs the data pages,
// then the meta page), records the events in the watch history, answers
// the callers, and hands the events to the hub's dispatcher, which fans
// them out in revision order while the next transaction runs.
//
// bbolt's db.Batch would also share the fsync, but it may run a function
// more than once and in a different transaction after a failure, and it
// gives no single place that knows the batch's final revision order; the
// watch fan-out needs exactly that, so the store keeps its own loop. There
// is no batching delay: while one transaction syncs, the next batch queues
// up, so the batch grows with the load by itself.

// committer holds the state only the commit loop touches.
type committer struct {
	store *Store
	// rev is the last committed revision.
	rev int64
	// diskOldest is the revision of the oldest event in the events
	// bucket; the events before rev+1-HistorySize are deleted.
	diskOldest int64
	// referrers maps a kept event's revision to the revision of the
	// event that refers to its value as the previous one (prevAt), for
	// trimHistory.
	referrers map[int64]int64
	// space is the quota and full-disk guard (quota.go).
	space spaceGuard
}

// commitLoop runs until Close closes s.reqs, then commits what is left.
func (s *Store) commitLoop(c *committer) {
	defer s.wg.Done()
	batch := make([]*op, 0, s.opts.MaxBatch)
	for o := range s.reqs {
		batch = append(batch[:0], o)
		batch = s.drain(batch)
		c.commit(batch)
		s.settle(len(batch))
		clear(batch)
	}
}

// settle gives the writers just answered a moment to queue their next
// write before the committer takes the next batch. Without it, closed-loop
// writers split into two cohorts that alternate between transactions,
// each half the size it could be. After a batch of one (no concurrency)
// it does nothing; otherwise it yields while the queue keeps growing, a
// few microseconds against a commit's milliseconds.
func (s *Store) settle(lastBatch int) {
	if lastBatch < 2 {
		return
	}
	for range 8 {
		n := len(s.reqs)
		runtime.Gosched()
		if len(s.reqs) == n {
			return
		}
	}
}

// drain appends the ops already queued, without waiting for more.
func (s *Store) drain(batch []*op) []*op {
	for len(batch) < s.opts.MaxBatch {
		select {
		case o, ok := <-s.reqs:
			if !ok {
				return batch
			}
			batch = append(batch, o)
		default:
			return batch
		}
	}
	return batch
}

// errNothingWritten ends a transaction in which every op failed its check.
var errNothingWritten = errors.New("boltstore: nothing written")

// commit writes one batch in one transaction and answers every op in it.
// Compactions in the batch run after the transaction.
func (c *committer) commit(batch []*op) {
	s := c.store
	writes, maint := splitMaintenance(batch)
	start := time.Now()
	t := c.transact(writes)
	if t.err != nil && isDiskFull(t.err) {
		// bbolt rolled back. Try again with the deletes alone (they are
		// what frees space, and must not fail for a create's sake), in
		// the room the disk reserve leaves if it was just released.
		if released := c.diskFull(); released || !onlyDeletes(writes) {
			t = c.transact(writes)
		}
	}
	if t.err != nil {
		err := c.commitError(t.err)
		s.log.Error("commit failed", "ops", len(writes), "err", err)
		t.events = nil // rolled back: nothing to tell the watchers
		for i := range t.results {
			t.results[i] = result{err: err}
		}
	} else if t.rev != c.rev {
		c.remember(t.refs, c.diskOldest, t.oldest)
		c.rev, c.diskOldest = t.rev, t.oldest
		s.rev.Store(t.rev)
		if s.opts.OnCommit != nil && len(t.events) > 0 {
			s.opts.OnCommit(len(t.events), time.Since(start))
		}
		s.hub.record(t.events)
		c.measure(t.grew)
	}
	if c.space.raisedByWrite {
		c.space.raisedByWrite = false
		c.alarmRaised()
	}
	for i, o := range writes {
		o.done <- t.results[i]
	}
	s.hub.publish(t.events)
	for _, o := range maint {
		o.done <- c.compact(o)
	}
}

// txn is what one transaction did.
type txn struct {
	results []result
	events  []storage.Event
	rev     int64 // the last revision written (c.rev if none)
	oldest  int64 // the oldest revision left in the events bucket
	grew    bool  // a create or update was written (not only deletes)
	err     error // the transaction failed and was rolled back
	// refs are the transaction's prevAt references, to -> from.
	refs map[int64]int64
}

// transact applies batch in one bbolt transaction. Ops the space guard
// refuses, and ops that fail their checks, fail alone.
func (c *committer) transact(batch []*op) txn {
	s := c.store
	t := txn{results: make([]result, len(batch)), rev: c.rev, oldest: c.diskOldest, refs: map[int64]int64{}}
	if len(batch) == 0 {
		return t
	}
	now := time.Now()
	err := s.db.Update(func(tx *bolt.Tx) error {
		t = txn{results: t.results, refs: t.refs, rev: c.rev, oldest: c.diskOldest}
		clear(t.results)
		clear(t.refs)
		var pending int64 // bytes admitted in this transaction
		kvs, evs := tx.Bucket(bucketKV), tx.Bucket(bucketEvents)
		// Events are only ever appended (revision keys grow), so full
		// pages lose nothing to later inserts: fewer pages to write.
		// Objects are mostly created in name order (a controller's
		// pod-1, pod-2..., a bulk create), where bbolt's default of half
		// full pages would leave every page but the last half empty; a
		// tenth is left for objects that grow (a pod's status).
		evs.FillPercent = 1
		kvs.FillPercent = 0.9
		for i, o := range batch {
			if err := o.ctx.Err(); err != nil {
				t.results[i].err = err
				continue
			}
			if err := c.space.admit(o, &pending, now); err != nil {
				t.results[i].err = err
				continue
			}
			ev, opErr, err := apply(kvs, evs, o, t.rev+1)
			if err != nil {
				return err
			}
			if opErr != nil {
				t.results[i].err = opErr
				continue
			}
			c.sharePrevValue(&ev, t.events)
			t.rev++
			// Every event from oldest on is in the bucket, this batch's
			// included, so an update refers to its previous value there.
			prevKept := ev.PrevKV != nil && ev.PrevKV.ModRevision >= t.oldest
			b := encodeEvent(ev, prevKept)
			if err := evs.Put(revKey(t.rev), b); err != nil {
				return err
			}
			if p, ok := prevRef(b); ok {
				t.refs[p] = t.rev
			}
			t.events = append(t.events, ev)
			t.results[i].kv = ev.KV
			t.grew = t.grew || o.kind != opDelete
		}
		if t.rev == c.rev {
			return errNothingWritten // roll back: no commit, no fsync
		}
		var err error
		t.oldest, err = trimHistory(kvs, evs, t.oldest, t.rev-int64(s.opts.HistorySize), c.referrer(t.refs))
		if err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(metaRevision, revKey(t.rev))
	})
	if errors.Is(err, errNothingWritten) {
		err = nil
	}
	if err != nil {
		t.events, t.rev, t.oldest, t.err = nil, c.rev, c.diskOldest, err
	}
	return t
}

// commitError is the error a failed transaction's ops get: storage.ErrNoSpace
// for a full disk, otherwise bbolt's error without the database's path.
func (c *committer) commitError(err error) error {
	if isDiskFull(err) {
		c.diskFull()
		return errDiskFull
	}
	return &pathless{err: fmt.Errorf("boltstore: commit: %w", err), path: c.store.path}
}

// onlyDeletes reports whether the space guard would pass every op anyway.
func onlyDeletes(batch []*op) bool {
	for _, o := range batch {
		if o.kind != opDelete && !storage.IsForDelete(o.ctx) {
			return false
		}
	}
	return true
}

// splitMaintenance separates the compactions from the writes.
func splitMaintenance(batch []*op) (writes, maint []*op) {
	for _, o := range batch {
		if o.kind == opCompact {
			maint = append(maint, o)
		} else {
			writes = append(writes, o)
		}
	}
	return writes, maint
}

// apply performs one op as revision rev. opErr is the op's own failure
// (ErrExists, ErrNotFound, ErrConflict); err fails the whole transaction.
// The caller puts the event at rev, which holds the key's new value.
func apply(kvs, evs *bolt.Bucket, o *op, rev int64) (ev storage.Event, opErr, err error) {
	key := []byte(o.key)
	var prev *storage.KV
	if v := kvs.Get(key); v != nil {
		kv, err := decodeRecord(o.key, v, eventValues(evs))
		if err != nil {
			return ev, nil, err
		}
		prev = &kv
	}
	switch o.kind {
	case opCreate:
		if prev != nil {
			return ev, fmt.Errorf("%w: %s", storage.ErrExists, o.key), nil
		}
		kv := storage.KV{Key: o.key, Value: o.value, CreateRevision: rev, ModRevision: rev}
		return storage.Event{Type: storage.Put, KV: kv}, nil, kvs.Put(key, encodeRecordInEvent(rev, rev))
	case opUpdate:
		if opErr := precondition(o, prev, false); opErr != nil {
			return ev, opErr, nil
		}
		kv := storage.KV{Key: o.key, Value: o.value, CreateRevision: prev.CreateRevision, ModRevision: rev}
		return storage.Event{Type: storage.Put, KV: kv, PrevKV: prev}, nil, kvs.Put(key, encodeRecordInEvent(kv.CreateRevision, rev))
	case opDelete:
		if opErr := precondition(o, prev, true); opErr != nil {
			return ev, opErr, nil
		}
		kv := *prev
		kv.ModRevision = rev
		return storage.Event{Type: storage.Delete, KV: kv, PrevKV: prev}, nil, kvs.Delete(key)
	}
	return ev, nil, errors.New("boltstore: unknown op")
}

// precondition checks that the key exists and, unless anyRevision allows 0,
// that its ModRevision is the expected one.
func precondition(o *op, prev *storage.KV, anyRevision bool) error {
	if prev == nil {
		return fmt.Errorf("%w: %s", storage.ErrNotFound, o.key)
	}
	if anyRevision && o.expected == 0 {
		return nil
	}
	if prev.ModRevision != o.expected {
		return fmt.Errorf("%w: %s is at revision %d, not %d", storage.ErrConflict, o.key, prev.ModRevision, o.expected)
	}
	return nil
}

// sharePrevValue points ev's previous value at the bytes of the event
// that wrote it, still in memory (batch, this transaction's events so far,
// or the hub's history), instead of the copy read from the kv bucket: the
// history in memory then holds each value once.
func (c *committer) sharePrevValue(ev *storage.Event, batch []storage.Event) {
	if ev.PrevKV == nil {
		return
	}
	p := ev.PrevKV.ModRevision
	var value []byte
	var ok bool
	if i := p - c.rev - 1; i >= 0 {
		// batch holds revisions c.rev+1, c.rev+2, ... in order.
		if ok = i < int64(len(batch)) && batch[i].KV.Key == ev.KV.Key; ok {
			value = batch[i].KV.Value
		}
	} else {
		value, ok = c.store.hub.valueAt(p, ev.KV.Key)
	}
	if !ok {
		return
	}
	if ev.Type == storage.Delete {
		ev.KV.Value = value
	}
	ev.PrevKV.Value = value
}

// referrer finds the event that refers to a revision's value: one of
// refs, not yet committed, or a committed one.
func (c *committer) referrer(refs map[int64]int64) func(to int64) (int64, bool) {
	return func(to int64) (int64, bool) {
		if from, ok := refs[to]; ok {
			return from, true
		}
		from, ok := c.referrers[to]
		return from, ok
	}
}

// remember records a committed transaction's references and forgets the
// ones to the events it trimmed, [trimmedFrom, oldest).
func (c *committer) remember(refs map[int64]int64, trimmedFrom, oldest int64) {
	for to, from := range refs {
		c.referrers[to] = from
	}
	for rev := trimmedFrom; rev < oldest; rev++ {
		delete(c.referrers, rev)
	}
}

// trimHistory deletes the events at revisions [oldest, cutoff] and returns
// the new oldest kept revision. Whatever takes its value from a deleted
// event gets it written in full first, so everything kept can still be
// read whole: the event that refers to it as its previous value
// (referrer), and the kv record whose current value it is.
func trimHistory(kvs, evs *bolt.Bucket, oldest, cutoff int64, referrer func(int64) (int64, bool)) (int64, error) {
	for ; oldest <= cutoff; oldest++ {
		if from, ok := referrer(oldest); ok && from > cutoff {
			if err := inlinePrev(evs, from); err != nil {
				return oldest, err
			}
		}
		if err := deleteEvent(kvs, evs, oldest); err != nil {
			return oldest, err
		}
	}
	return oldest, nil
}

// deleteEvent deletes the event at rev, first writing its value into the
// kv record that takes its value from it, if one does.
func deleteEvent(kvs, evs *bolt.Bucket, rev int64) error {
	k := revKey(rev)
	if b := evs.Get(k); len(b) > 1 && storage.EventType(b[0]) == storage.Put {
		key, _, err := readBytes(b[1:])
		if err != nil {
			return err
		}
		if recordInEvent(kvs.Get(key), rev) {
			kv, _, err := readKV(b[1:]) // a copy: bbolt needs it until the commit
			if err != nil {
				return err
			}
			if err := kvs.Put([]byte(kv.Key), encodeRecord(kv.CreateRevision, rev, kv.Value)); err != nil {
				return err
			}
		}
	}
	return evs.Delete(k)
}

// inlinePrev rewrites the event at rev with its previous value in full.
func inlinePrev(evs *bolt.Bucket, rev int64) error {
	ev, err := decodeEvent(evs.Get(revKey(rev)), eventValues(evs))
	if err != nil {
		return err
	}
	return evs.Put(revKey(rev), encodeEvent(ev, false))
}
