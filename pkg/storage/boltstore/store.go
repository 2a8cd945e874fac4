package boltstore

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Store is a storage.Store kept in one bbolt file.
type Store struct {
	// db is swapped by a compaction (compact.go) under dbMu's write
	// lock; readers hold its read lock. The committer, which runs the
	// compactions, uses db without it.
	db   *bolt.DB
	dbMu sync.RWMutex
	path string
	opts Options
	log  *slog.Logger

	// space is the last SpaceStatus the committer measured.
	space atomic.Pointer[storage.SpaceStatus]

	// mu guards closed, and is read-held by every sender on reqs so that
	// Close never closes the channel under a sender.
	mu     sync.RWMutex
	closed bool
	reqs   chan *op

	// rev is the last committed revision. Only the committer stores it,
	// after the fsync.
	rev atomic.Int64
	hub *hub

	stop      chan struct{}  // closed by Close: ends the progress loop
	wg        sync.WaitGroup // the committer and the progress loop
	closeOnce sync.Once
	closeErr  error
}

var _ storage.Store = (*Store)(nil)

// Open opens (creating if needed) the database file at path and starts the
// store's committer. Only one Store may have a file open at a time; a
// second Open of the same file fails after a second.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	db, err := openBolt(path, opts)
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	if opts.DiskReserveBytes > 0 {
		if err := ensureReserve(path, opts.DiskReserveBytes); err != nil {
			opts.Logger.Warn("no room for the disk reserve: on a full disk deletes may fail too", "component", "boltstore", "err", err)
		}
	}
	st, err := loadState(db, opts.HistorySize)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	// After loadState, which trims the history to HistorySize, so that
	// the pages the trim freed are given back too.
	if db, err = compactOnOpen(db, path, opts); err != nil {
		return nil, fmt.Errorf("boltstore: compact %s: %w", path, err)
	}
	s := &Store{
		db:   db,
		path: path,
		opts: opts,
		log:  opts.Logger.With("component", "boltstore"),
		reqs: make(chan *op, opts.MaxBatch),
		hub:  newHub(opts, st.rev, st.history),
		stop: make(chan struct{}),
	}
	s.rev.Store(st.rev)
	c := &committer{store: s, rev: st.rev, diskOldest: st.diskOldest, space: spaceGuard{quota: opts.QuotaBytes}}
	c.measure(false)
	s.wg.Add(1)
	go s.commitLoop(c)
	if opts.ProgressInterval > 0 {
		s.wg.Add(1)
		go s.progressLoop()
	}
	s.log.Debug("opened", "path", path, "revision", st.rev, "history", len(st.history))
	return s, nil
}

// openBolt opens the bbolt file with the store's settings.
func openBolt(path string, opts Options) (*bolt.DB, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout: time.Second,
		// The freelist is rebuilt by scanning on open instead of being
		// written by every commit: fewer pages per fsync, as in etcd.
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
	})
	if err != nil {
		return nil, err
	}
	db.NoSync = opts.NoSync
	return db, nil
}

// compactOnOpen compacts the file, closing db and opening it again, when
// asked to, or when the file is larger than the quota (its free pages may
// be what is over). It returns the database to go on with.
func compactOnOpen(db *bolt.DB, path string, opts Options) (*bolt.DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	over := opts.QuotaBytes > 0 && fi.Size() > opts.QuotaBytes
	if !opts.CompactOnOpen && !over {
		return db, nil
	}
	start := time.Now()
	if err := db.Close(); err != nil {
		return nil, err
	}
	if err := compactFile(path, opts); err != nil {
		return nil, err
	}
	after, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	opts.Logger.Info("compacted the database before opening it", "component", "boltstore", "overQuota", over,
		"fileBytesBefore", fi.Size(), "fileBytesAfter", after.Size(), "took", time.Since(start))
	return openBolt(path, opts)
}

// state is what Open reads from disk.
type state struct {
	rev        int64
	history    []storage.Event // oldest first, contiguous revisions
	diskOldest int64           // revision of the oldest event kept on disk
}

// loadState creates the buckets on a new file, trims the on-disk history to
// historySize (the option may have shrunk) and reads what is left.
func loadState(db *bolt.DB, historySize int) (state, error) {
	var st state
	err := db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketKV, bucketEvents, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		rev, err := readRevision(tx)
		if err != nil {
			return err
		}
		st.rev = rev
		hist, err := loadHistory(tx.Bucket(bucketEvents), st.rev, historySize)
		if err != nil {
			return err
		}
		st.history = hist
		st.diskOldest = st.rev + 1 - int64(len(hist))
		return nil
	})
	return st, err
}

// loadHistory reads the newest historySize events, deleting older ones, and
// checks that they end at rev without gaps.
func loadHistory(b *bolt.Bucket, rev int64, historySize int) ([]storage.Event, error) {
	var hist []storage.Event
	var stale [][]byte
	c := b.Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if len(hist) == historySize {
			stale = append(stale, append([]byte(nil), k...))
			continue
		}
		r, err := decodeRev(k)
		if err != nil {
			return nil, err
		}
		if want := rev - int64(len(hist)); r != want {
			return nil, fmt.Errorf("%w: event %d where %d was expected", errCorrupt, r, want)
		}
		ev, err := decodeEvent(v)
		if err != nil {
			return nil, err
		}
		hist = append(hist, ev)
	}
	for _, k := range stale {
		if err := b.Delete(k); err != nil {
			return nil, err
		}
	}
	for i, j := 0, len(hist)-1; i < j; i, j = i+1, j-1 {
		hist[i], hist[j] = hist[j], hist[i]
	}
	return hist, nil
}

// Revision is the revision of the last acknowledged write.
func (s *Store) Revision() int64 { return s.rev.Load() }

// Close stops accepting writes, commits the ones already queued, ends every
// watch with storage.ErrClosed and closes the file. Later calls return nil.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.reqs)
		s.mu.Unlock()
		close(s.stop)
		s.wg.Wait()
		s.hub.close()
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("boltstore: close: %w", err)
		}
	})
	return s.closeErr
}

// isClosed reports whether Close has started.
func (s *Store) isClosed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.closed
}

// readErr maps bbolt's "not open" to storage.ErrClosed.
func readErr(err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return storage.ErrClosed
	}
	return err
}
