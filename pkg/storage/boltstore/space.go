package boltstore

import (
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

var _ storage.Maintainer = (*Store)(nil)

// SpaceStatus is the store's space accounting as of the last commit, with
// the file's size now.
func (s *Store) SpaceStatus() storage.SpaceStatus {
	st := *s.space.Load()
	if fi, err := os.Stat(s.path); err == nil {
		st.FileBytes = fi.Size()
	}
	return st
}

// measure updates the space accounting after a commit (wroteNonDelete:
// it wrote a create or update) or a compaction, and logs the alarm's
// changes.
func (c *committer) measure(wroteNonDelete bool) {
	s := c.store
	var size int64
	_ = s.db.View(func(tx *bolt.Tx) error {
		size = tx.Size()
		return nil
	})
	// FreePageN is also right just after open, where FreeAlloc is not
	// set until the first write transaction.
	st := s.db.Stats()
	used := size - int64(st.FreePageN+st.PendingPageN)*int64(s.db.Info().PageSize)
	switch c.space.measured(used, wroteNonDelete) {
	case "raised":
		c.alarmRaised()
		return
	case "cleared":
		s.log.Info("database space alarm cleared: writes resume", "inUseBytes", used, "quotaBytes", c.space.quota)
		if s.opts.DiskReserveBytes > 0 {
			if err := ensureReserve(s.path, s.opts.DiskReserveBytes); err != nil {
				s.log.Warn("no room to write the disk reserve back", "err", &pathless{err: err, path: s.path})
			}
		}
	}
	c.publish()
}

// alarmRaised logs and publishes the quota alarm's raising.
func (c *committer) alarmRaised() {
	c.store.log.Warn("database space alarm raised: creates and updates are refused until space is freed",
		"alarm", storage.AlarmNoSpace, "reason", "quota", "inUseBytes", c.space.used, "quotaBytes", c.space.quota)
	c.publish()
}

// diskFull notes a commit that failed for want of disk space, and
// releases the disk reserve; released says whether it did.
func (c *committer) diskFull() (released bool) {
	s := c.store
	if c.space.foundDiskFull(time.Now()) {
		s.log.Warn("database space alarm raised: the disk is full; creates and updates are refused until space is freed",
			"alarm", storage.AlarmNoSpace, "reason", "disk full")
	}
	if s.opts.DiskReserveBytes > 0 && releaseReserve(s.path) {
		released = true
		s.log.Warn("released the disk reserve so that deletes can commit", "bytes", s.opts.DiskReserveBytes)
	}
	c.publish()
	return released
}

// publish stores the committer's accounting for Status.
func (c *committer) publish() {
	name, reason := c.space.alarm()
	c.store.space.Store(&storage.SpaceStatus{
		InUseBytes:    c.space.used,
		QuotaBytes:    c.space.quota,
		Alarm:         name,
		AlarmReason:   reason,
		HistoryOldest: c.diskOldest,
		Revision:      c.rev,
	})
}
