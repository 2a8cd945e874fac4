package boltstore

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

type opKind uint8

const (
	opCreate opKind = iota
	opUpdate
	opDelete
	// opCompact is a maintenance request (Compact), run by the committer
	// between transactions.
	opCompact
)

// op is one write waiting for the committer.
type op struct {
	ctx      context.Context
	kind     opKind
	key      string
	value    []byte // a private copy: events hand it to watchers
	expected int64
	// keepHistory is a compaction's CompactOptions.KeepHistory.
	keepHistory int
	done        chan result // capacity 1: the committer never waits on it
}

// result answers an op: for a create or update the new KV, for a delete the
// deleted KV with the delete's revision as ModRevision.
type result struct {
	kv  storage.KV
	err error
	// compacted answers an opCompact.
	compacted storage.CompactResult
}

// Create stores a new key and returns its revision, or storage.ErrExists.
func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	r := s.write(ctx, &op{kind: opCreate, key: key, value: value})
	return r.kv.ModRevision, r.err
}

// Update replaces the key's value if its ModRevision is expectedRevision.
func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	r := s.write(ctx, &op{kind: opUpdate, key: key, value: value, expected: expectedRevision})
	return r.kv.ModRevision, r.err
}

// Delete removes the key if expectedRevision is 0 or its ModRevision.
func (s *Store) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KV, error) {
	r := s.write(ctx, &op{kind: opDelete, key: key, expected: expectedRevision})
	return r.kv, r.err
}

// write queues o for the committer and waits for its fsync. Once queued, a
// write is neither abandoned nor reported early: if the context ends before
// the committer reaches it, it fails with the context's error and nothing
// is written; otherwise the caller learns the outcome of the commit.
func (s *Store) write(ctx context.Context, o *op) result {
	if err := checkKey(o.key); err != nil {
		return result{err: err}
	}
	return s.enqueue(ctx, o)
}

// enqueue hands o to the committer and waits for its answer.
func (s *Store) enqueue(ctx context.Context, o *op) result {
	if err := ctx.Err(); err != nil {
		return result{err: err}
	}
	o.ctx = ctx
	o.value = append([]byte(nil), o.value...)
	o.done = make(chan result, 1)
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return result{err: storage.ErrClosed}
	}
	select {
	case s.reqs <- o:
	case <-ctx.Done():
		s.mu.RUnlock()
		return result{err: ctx.Err()}
	}
	s.mu.RUnlock()
	return <-o.done
}

func checkKey(key string) error {
	if key == "" {
		return fmt.Errorf("boltstore: empty key")
	}
	if len(key) > bolt.MaxKeySize {
		return fmt.Errorf("boltstore: key of %d bytes is longer than %d", len(key), bolt.MaxKeySize)
	}
	return nil
}
