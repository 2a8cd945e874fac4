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
	c := &committer{store: s, rev: st.rev, diskOldest: st.diskOldest, referrers: st.referrers, space: spaceGuard{quota: opts.QuotaBytes}}
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
	db, err := bolt.Open(path, 0o600, boltOptions())
	if err != nil {
		return nil, err
	}
	db.NoSync = opts.NoSync
	// bbolt grows the file 16 MiB at a time by default: 1.6 KB of empty
	// file per object on a store of 10,000 pods. 4 MiB steps cost one
	// more fsync per 4 MiB of growth and leave a quarter of that slack.
	db.AllocSize = 4 << 20
	return db, nil
}

// boltOptions are the options of every bbolt file of the store, the
// store's own and a compaction's copy.
func boltOptions() *bolt.Options {
	return &bolt.Options{
		Timeout: time.Second,
		// The freelist is rebuilt by scanning on open instead of being
		// written by every commit: fewer pages per fsync, as in etcd.
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		// bbolt keeps at least two values per leaf page. Objects of a
		// few KiB (a pod with its managedFields is about 2 KiB) then
		// overflow 4 KiB pages into two, which end half empty; 16 KiB
		// pages hold seven such values and end about 90% full. (Only a
		// new file takes it: an existing one keeps its page size, and a
		// compaction copies it into 16 KiB pages.)
		PageSize: 16 << 10,
	}
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
	referrers  map[int64]int64 // see committer.referrers
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
		hist, referrers, err := loadHistory(tx.Bucket(bucketKV), tx.Bucket(bucketEvents), st.rev, historySize)
		if err != nil {
			return err
		}
		st.history, st.referrers = hist, referrers
		st.diskOldest = st.rev + 1 - int64(len(hist))
		return nil
	})
	return st, err
}

// loadHistory reads the newest historySize events, oldest first, after
// deleting older ones, and checks that they end at rev without gaps. It
// also returns which kept event refers to which one's value (prevAt).
func loadHistory(kvs, b *bolt.Bucket, rev int64, historySize int) ([]storage.Event, map[int64]int64, error) {
	first := rev - int64(historySize) + 1
	if err := dropEventsBefore(kvs, b, first); err != nil {
		return nil, nil, err
	}
	var hist []storage.Event
	referrers := map[int64]int64{}
	values := eventValues(b)
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		r, err := decodeRev(k)
		if err != nil {
			return nil, nil, err
		}
		if len(hist) > 0 && r != hist[len(hist)-1].KV.ModRevision+1 {
			return nil, nil, fmt.Errorf("%w: event %d after %d", errCorrupt, r, hist[len(hist)-1].KV.ModRevision)
		}
		ev, err := decodeEvent(v, values)
		if err != nil {
			return nil, nil, err
		}
		if p, ok := prevRef(v); ok {
			referrers[p] = r
		}
		hist = append(hist, ev)
	}
	if len(hist) > 0 && hist[len(hist)-1].KV.ModRevision != rev {
		return nil, nil, fmt.Errorf("%w: last event %d, store revision %d", errCorrupt, hist[len(hist)-1].KV.ModRevision, rev)
	}
	return hist, referrers, nil
}

// dropEventsBefore deletes the events before revision first (the history
// option may have shrunk), writing in full first the previous values that
// kept events and kv records take from them.
func dropEventsBefore(kvs, b *bolt.Bucket, first int64) error {
	var stale []int64
	var inline []int64
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		r, err := decodeRev(k)
		if err != nil {
			return err
		}
		if r < first {
			stale = append(stale, r)
		} else if p, ok := prevRef(v); ok && p < first {
			inline = append(inline, r)
		}
	}
	// A cursor may skip keys once its bucket changes: change it after.
	for _, r := range inline {
		if err := inlinePrev(b, r); err != nil {
			return err
		}
	}
	for _, r := range stale {
		if err := deleteEvent(kvs, b, r); err != nil {
			return err
		}
	}
	return nil
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
