package storage

import (
	"context"
	"time"
)

// Maintainer is implemented by backends the server maintains itself (the
// bbolt store; etcd has its own tools): the space accounting behind the
// quota, and compaction.
type Maintainer interface {
	// SpaceStatus reports the space used, the quota and the alarm.
	SpaceStatus() SpaceStatus
	// Compact trims the history if asked, then gives the free space of
	// the database file back to the file system.
	Compact(ctx context.Context, opts CompactOptions) (CompactResult, error)
}

// AlarmNoSpace is etcd's name for the alarm raised when the database is
// out of space: creates and updates fail with ErrNoSpace while it is on.
const AlarmNoSpace = "NOSPACE"

// SpaceStatus is a backend's space accounting.
type SpaceStatus struct {
	// FileBytes is the database file's size.
	FileBytes int64 `json:"fileBytes"`
	// InUseBytes is the part of it in use: what the quota counts.
	InUseBytes int64 `json:"inUseBytes"`
	// QuotaBytes is the quota (--quota-backend-bytes); 0 when none.
	QuotaBytes int64 `json:"quotaBytes"`
	// Alarm is AlarmNoSpace while creates and updates are refused.
	Alarm string `json:"alarm,omitempty"`
	// AlarmReason says why: "quota" or "disk full".
	AlarmReason string `json:"alarmReason,omitempty"`
	// HistoryOldest is the oldest revision of the kept history.
	HistoryOldest int64 `json:"historyOldest"`
	// Revision is the store's revision.
	Revision int64 `json:"revision"`
}

// CompactOptions says what a compaction does besides rewriting the file.
type CompactOptions struct {
	// KeepHistory, when 0 or more, first trims the history to the newest
	// KeepHistory events: watches and lists from older revisions then
	// get 410 Expired. Negative keeps it.
	KeepHistory int
}

// CompactResult reports a compaction.
type CompactResult struct {
	Before SpaceStatus `json:"before"`
	After  SpaceStatus `json:"after"`
	// TrimmedEvents is how many events the history trim removed.
	TrimmedEvents int64 `json:"trimmedEvents"`
	// Duration is the time the compaction took, writes held back.
	Duration time.Duration `json:"duration"`
}
