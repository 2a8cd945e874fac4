package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// listAt answers a List as of an older revision from the current state and
// the on-disk history read in the same transaction: every key changed after
// the revision is shown as it was before its first later change. This keeps
// paged lists consistent while writes go on, as long as the history reaches
// back to the first page's revision.
func (s *Store) listAt(ctx context.Context, tx *bolt.Tx, prefix string, opts storage.ListOptions, res *storage.ListResult) error {
	at := opts.Revision
	if at > res.Revision {
		return fmt.Errorf("%w: %d, current is %d", storage.ErrFutureRevision, at, res.Revision)
	}
	changed, err := changedSince(ctx, tx, prefix, at, res.Revision)
	if err != nil {
		return err
	}
	res.Revision = at
	start := startKey(prefix, opts.StartKey)
	var older []storage.KV // keys that existed at `at` and changed since
	for k, kv := range changed {
		if kv != nil && k >= string(start) {
			older = append(older, *kv)
		}
	}
	slices.SortFunc(older, func(a, b storage.KV) int { return strings.Compare(a.Key, b.Key) })

	p := []byte(prefix)
	c := tx.Bucket(bucketKV).Cursor()
	values := eventValues(tx.Bucket(bucketEvents))
	k, v := c.Seek(start)
	for {
		for k != nil && bytes.HasPrefix(k, p) && isChanged(changed, k) {
			k, v = c.Next()
		}
		cur := k != nil && bytes.HasPrefix(k, p)
		if !cur && len(older) == 0 {
			return nil
		}
		if opts.Limit > 0 && len(res.KVs) == opts.Limit {
			res.More = true
			return nil
		}
		if !cur || (len(older) > 0 && older[0].Key < string(k)) {
			res.KVs = append(res.KVs, older[0])
			older = older[1:]
			continue
		}
		kv, err := decodeRecord(string(k), v, values)
		if err != nil {
			return err
		}
		res.KVs = append(res.KVs, kv)
		k, v = c.Next()
	}
}

func isChanged(changed map[string]*storage.KV, k []byte) bool {
	_, ok := changed[string(k)]
	return ok
}

// changedSince maps every key under prefix written after revision at to its
// value at that revision (nil: it did not exist then). It fails with
// storage.ErrExpired when the history does not reach back to at+1.
func changedSince(ctx context.Context, tx *bolt.Tx, prefix string, at, current int64) (map[string]*storage.KV, error) {
	c := tx.Bucket(bucketEvents).Cursor()
	first, _ := c.First()
	if first == nil {
		return nil, &storage.ExpiredError{Requested: at, Oldest: current}
	}
	oldest, err := decodeRev(first)
	if err != nil {
		return nil, err
	}
	if at < oldest-1 {
		return nil, &storage.ExpiredError{Requested: at, Oldest: oldest - 1}
	}
	changed := map[string]*storage.KV{}
	values := eventValues(tx.Bucket(bucketEvents))
	n := 0
	for k, v := c.Seek(revKey(at + 1)); k != nil; k, v = c.Next() {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ev, err := decodeEvent(v, values)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(ev.KV.Key, prefix) {
			continue
		}
		if _, seen := changed[ev.KV.Key]; !seen {
			changed[ev.KV.Key] = ev.PrevKV
		}
	}
	return changed, nil
}
