package boltstore

import (
	"bytes"
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Get returns the key's current value, or storage.ErrNotFound.
func (s *Store) Get(ctx context.Context, key string) (storage.KV, error) {
	if err := s.readable(ctx); err != nil {
		return storage.KV{}, err
	}
	var kv storage.KV
	s.dbMu.RLock()
	defer s.dbMu.RUnlock()
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketKV).Get([]byte(key))
		if v == nil {
			return fmt.Errorf("%w: %s", storage.ErrNotFound, key)
		}
		var err error
		kv, err = decodeRecord(key, v, eventValues(tx.Bucket(bucketEvents)))
		return err
	})
	return kv, readErr(err)
}

// List returns the keys under prefix in key order, read in one read
// transaction, with the revision of that transaction. Callers should end
// prefixes with "/": the prefix "/a/b" also matches "/a/bc".
//
// opts.Revision other than 0 or the current revision is answered from the
// kept history (see listAt), or with storage.ErrExpired when the history no
// longer reaches back that far.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if err := s.readable(ctx); err != nil {
		return storage.ListResult{}, err
	}
	if opts.Limit < 0 || opts.Revision < 0 {
		return storage.ListResult{}, fmt.Errorf("boltstore: list: negative limit or revision")
	}
	var res storage.ListResult
	s.dbMu.RLock()
	defer s.dbMu.RUnlock()
	err := s.db.View(func(tx *bolt.Tx) error {
		rev, err := readRevision(tx)
		if err != nil {
			return err
		}
		res.Revision = rev
		if opts.Revision != 0 && opts.Revision != rev {
			return s.listAt(ctx, tx, prefix, opts, &res)
		}
		return listCurrent(ctx, tx, prefix, opts, &res)
	})
	if err != nil {
		return storage.ListResult{}, readErr(err)
	}
	return res, nil
}

// listCurrent scans the kv bucket from max(prefix, StartKey).
func listCurrent(ctx context.Context, tx *bolt.Tx, prefix string, opts storage.ListOptions, res *storage.ListResult) error {
	p := []byte(prefix)
	c := tx.Bucket(bucketKV).Cursor()
	values := eventValues(tx.Bucket(bucketEvents))
	for k, v := c.Seek(startKey(prefix, opts.StartKey)); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if opts.Limit > 0 && len(res.KVs) == opts.Limit {
			res.More = true
			return nil
		}
		if len(res.KVs)%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		kv, err := decodeRecord(string(k), v, values)
		if err != nil {
			return err
		}
		res.KVs = append(res.KVs, kv)
	}
	return nil
}

func startKey(prefix, start string) []byte {
	if start > prefix {
		return []byte(start)
	}
	return []byte(prefix)
}

// readable refuses reads on a cancelled context or a closed store.
func (s *Store) readable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.isClosed() {
		return storage.ErrClosed
	}
	return nil
}
