package journal

import (
	"context"
	"sync"
	"time"
)

// DefaultSize is how many passes a Journal keeps when New is given no size.
const DefaultSize = 10000

// Journal is a bounded, concurrency-safe ring of passes. Build it with New.
type Journal struct {
	now  func() time.Time
	size int

	mu sync.Mutex
	// ring holds the newest passes: the pass numbered seq sits at
	// (seq-1) % size. It grows up to size, then old entries are reused.
	ring []entry
	// last is the newest pass's sequence number; 0 before the first.
	last uint64
	// changed is closed by the next Add; nil until a reader waits.
	changed chan struct{}
}

// New returns a Journal that keeps the newest size passes (DefaultSize
// when size <= 0), stamped with now (time.Now when nil).
func New(size int, now func() time.Time) *Journal {
	if size <= 0 {
		size = DefaultSize
	}
	if now == nil {
		now = time.Now
	}
	return &Journal{now: now, size: size, ring: make([]entry, 0, min(size, 1024))}
}

// Size is how many passes j keeps.
func (j *Journal) Size() int { return j.size }

// Add records one pass and returns its sequence number. It formats
// nothing: see Record.
func (j *Journal) Add(r Record) uint64 {
	t := j.now()
	j.mu.Lock()
	j.last++
	e := entry{seq: j.last, time: t, rec: r}
	if len(j.ring) < j.size {
		j.ring = append(j.ring, e)
	} else {
		j.ring[(e.seq-1)%uint64(j.size)] = e
	}
	changed := j.changed
	j.changed = nil
	seq := j.last
	j.mu.Unlock()
	if changed != nil {
		close(changed)
	}
	return seq
}

// Last is the newest pass's sequence number, 0 when none was recorded.
func (j *Journal) Last() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.last
}

// Since returns the kept passes numbered after `after` that f selects,
// oldest first, and the newest sequence number in the journal: pass it as
// `after` next time to read only what came since.
func (j *Journal) Since(after uint64, f Filter) ([]Pass, uint64) {
	j.mu.Lock()
	last := j.last
	var picked []entry
	for seq := max(after, j.oldestLocked()-1) + 1; seq <= last; seq++ {
		e := &j.ring[(seq-1)%uint64(j.size)]
		if f.Match(&e.rec) {
			picked = append(picked, *e)
		}
	}
	j.mu.Unlock()
	// Format outside the lock: writers never wait for a reader's fmt.
	passes := make([]Pass, len(picked))
	for i := range picked {
		passes[i] = picked[i].pass()
	}
	return passes, last
}

// oldestLocked is the sequence number of the oldest kept pass (last+1
// when none is kept).
func (j *Journal) oldestLocked() uint64 {
	return j.last - uint64(len(j.ring)) + 1
}

// Wait blocks until a pass numbered after `after` exists or ctx is done,
// and returns ctx's error in the latter case.
func (j *Journal) Wait(ctx context.Context, after uint64) error {
	j.mu.Lock()
	if j.last > after {
		j.mu.Unlock()
		return nil
	}
	if j.changed == nil {
		j.changed = make(chan struct{})
	}
	changed := j.changed
	j.mu.Unlock()
	select {
	case <-changed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
