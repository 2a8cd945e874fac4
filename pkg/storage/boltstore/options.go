package boltstore

import (
	"log/slog"
	"time"
)

// Options configures a Store. The zero value is usable: every zero field
// takes the default named in its comment.
type Options struct {
	// HistorySize is how many past events are kept, in memory and on
	// disk, for watches to resume from (the server's --watch-history).
	// Default 10000.
	HistorySize int
	// WatcherBuffer is each watcher's channel capacity. A watcher whose
	// buffer is full when an event arrives is ended with
	// storage.ErrWatcherTooSlow. Default 1024.
	WatcherBuffer int
	// ProgressInterval is how often a watcher that received nothing
	// since the last tick gets a storage.Progress event. Default 1s;
	// negative disables progress events.
	ProgressInterval time.Duration
	// MaxBatch caps the writes that share one transaction. Default 1024.
	MaxBatch int
	// NoSync commits without fsync (miniapi's --unsafe-no-fsync): a write
	// is acknowledged before it is on disk, so a crash of the machine may
	// lose it. For throwaway test servers only.
	NoSync bool
	// QuotaBytes is the database quota (miniapi's --quota-backend-bytes,
	// etcd's name): once the bytes in use reach it, creates and updates
	// fail with storage.ErrNoSpace until deletes, a history trim or
	// Compact bring them below it again (see quota.go). Deletes, and
	// writes whose context storage.ForDelete marked, always pass. 0: no
	// quota.
	QuotaBytes int64
	// CompactOnOpen rewrites the file without its free pages before
	// opening it (see Compact). Open also does so, without being asked,
	// when the file is larger than QuotaBytes.
	CompactOnOpen bool
	// DiskReserveBytes is the size of the reserve file kept beside the
	// database so that deletes still commit on a full disk (reserve.go).
	// 0: no reserve.
	DiskReserveBytes int64
	// Logger receives the store's few log lines. Default slog.Default().
	Logger *slog.Logger
	// OnCommit, when set, is called by the committer after each
	// successful fsync with the number of writes in the transaction (the
	// ones that failed their checks are not counted) and
	// the time the transaction took, for commit-latency metrics. It runs
	// on the write path, after Revision() has moved to the transaction's
	// last revision and before the events reach the watchers: keep it
	// quick.
	OnCommit func(batchSize int, d time.Duration)
}

const (
	defaultHistorySize      = 10000
	defaultWatcherBuffer    = 1024
	defaultProgressInterval = time.Second
	defaultMaxBatch         = 1024
)

func (o Options) withDefaults() Options {
	if o.HistorySize <= 0 {
		o.HistorySize = defaultHistorySize
	}
	if o.WatcherBuffer <= 0 {
		o.WatcherBuffer = defaultWatcherBuffer
	}
	if o.ProgressInterval == 0 {
		o.ProgressInterval = defaultProgressInterval
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = defaultMaxBatch
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
