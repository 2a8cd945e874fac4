package boltstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Compaction. bbolt never gives pages back to the file system: a file that
// once grew to N bytes stays N bytes, its freed pages reused by later
// writes. Compact is etcd's compact and defrag in one: it trims the history
// on disk if asked, then copies every bucket into a new file with full
// pages (bolt.Compact) and swaps it in.
//
// It is safe online because the committer runs it between transactions:
// no write runs while it copies (writes queue up and wait, as during
// etcd's defrag), reads go on from the old file while it is copied, and
// only the swap itself (close, rename, open) holds the readers back.
// Watches are not touched: they are fed from memory. The copy needs free
// disk space for the data in use; on a full disk it fails cleanly and the
// old file stays.

// compactTxSize is how many bytes bolt.Compact copies per transaction.
const compactTxSize = 64 << 20

// Compact trims the history if opts asks, then rewrites the database file
// without its free pages. Writes wait while it runs.
func (s *Store) Compact(ctx context.Context, opts storage.CompactOptions) (storage.CompactResult, error) {
	r := s.enqueue(ctx, &op{kind: opCompact, keepHistory: opts.KeepHistory})
	return r.compacted, r.err
}

// compact runs a Compact in the committer.
func (c *committer) compact(o *op) result {
	if err := o.ctx.Err(); err != nil {
		return result{err: err}
	}
	s := c.store
	start := time.Now()
	res := storage.CompactResult{Before: s.SpaceStatus()}
	if o.keepHistory >= 0 {
		n, err := c.trimTo(o.keepHistory)
		if err != nil {
			return result{err: c.commitError(err)}
		}
		res.TrimmedEvents = n
	}
	if err := s.rewrite(); err != nil {
		c.measure(false)
		err = &pathless{err: fmt.Errorf("boltstore: compact: %w", err), path: s.path}
		s.log.Error("compaction failed", "err", err)
		return result{err: err}
	}
	c.measure(false)
	res.After, res.Duration = s.SpaceStatus(), time.Since(start)
	s.log.Info("compacted", "trimmedEvents", res.TrimmedEvents, "fileBytesBefore", res.Before.FileBytes,
		"fileBytesAfter", res.After.FileBytes, "inUseBytes", res.After.InUseBytes, "took", res.Duration)
	return result{compacted: res}
}

// trimTo deletes the events older than the newest keep, on disk and in
// memory, and returns how many it deleted from disk.
func (c *committer) trimTo(keep int) (int64, error) {
	cutoff := c.rev - int64(keep)
	if cutoff < c.diskOldest {
		return 0, nil
	}
	var oldest int64
	err := c.store.db.Update(func(tx *bolt.Tx) error {
		var err error
		oldest, err = trimHistory(tx.Bucket(bucketKV), tx.Bucket(bucketEvents), c.diskOldest, cutoff, c.referrer(nil))
		return err
	})
	if err != nil {
		return 0, err
	}
	c.remember(nil, c.diskOldest, oldest)
	n := oldest - c.diskOldest
	c.diskOldest = oldest
	c.store.hub.trim(oldest)
	return n, nil
}

// rewrite copies the open database into a new file and swaps it in.
func (s *Store) rewrite() error {
	tmp := s.path + ".compact"
	if err := copyCompacted(s.db, tmp); err != nil {
		return err
	}
	s.dbMu.Lock()
	defer s.dbMu.Unlock()
	if err := s.db.Close(); err != nil {
		_ = os.Remove(tmp)
		return s.reopen(err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		_ = os.Remove(tmp)
		return s.reopen(err)
	}
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		return s.reopen(err)
	}
	return s.reopen(nil)
}

// reopen opens s.path again after rewrite closed it, and returns cause
// (or the open's failure).
func (s *Store) reopen(cause error) error {
	db, err := openBolt(s.path, s.opts)
	if err != nil {
		// The store cannot go on without its file: fail every later
		// write and read instead of using a closed database.
		s.log.Error("reopening after compaction failed", "err", &pathless{err: err, path: s.path})
		return errors.Join(cause, err)
	}
	s.db = db
	return cause
}

// copyCompacted writes src's buckets into a new file at dst with full
// pages, and syncs it. On failure dst is removed.
func copyCompacted(src *bolt.DB, dst string) (err error) {
	_ = os.Remove(dst) // left by a compaction that crashed
	out, err := bolt.Open(dst, 0o600, boltOptions())
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(dst)
		}
	}()
	// The copy is synced once at the end: until the rename it is nothing.
	out.NoSync = true
	if err := bolt.Compact(out, src, compactTxSize); err != nil {
		return err
	}
	return out.Sync()
}

// compactFile compacts the closed database file at path in place (Open's
// compaction, before the store starts).
func compactFile(path string, opts Options) error {
	src, err := openBolt(path, opts)
	if err != nil {
		return err
	}
	tmp := path + ".compact"
	err = copyCompacted(src, tmp)
	if cerr := src.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
