package boltstore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
)

// The space guard. Like etcd's NOSPACE alarm, with two differences that
// let a laptop recover without an operator:
//
//   - it counts the bytes in use (the file's pages minus its free pages),
//     not the file's size, so that deletes and history trims that free
//     pages bring the store back below the quota without a compaction;
//   - it clears itself once the bytes in use fall a little below the
//     quota (spaceHysteresis), where etcd waits for "alarm disarm".
//
// A full disk (ENOSPC from bbolt's write or fsync) is handled the same way:
// the failed transaction is rolled back by bbolt, its creates and updates
// get storage.ErrNoSpace, its deletes are retried alone (they mostly reuse
// free pages, which need no new disk blocks), and for diskFullBackoff
// creates and updates are refused without trying; then the next one tries
// again, so writes resume by themselves once space is freed.

// diskFullBackoff is how long creates and updates are refused after the
// disk was found full, before one is tried again.
const diskFullBackoff = time.Second

// errDiskFull is the error of a write refused because the disk is full.
// It names no path: it reaches API clients.
var errDiskFull = fmt.Errorf("%w: the disk is full", storage.ErrNoSpace)

// AlarmNone is the alarm's name when it is off.
const AlarmNone = ""

// spaceGuard is the committer's view of the space; only the committer
// touches it.
type spaceGuard struct {
	quota int64
	// used is the bytes in use after the last commit.
	used int64
	// overQuota is set once used reaches quota, or a write that does not
	// fit finds it within spaceHysteresis of it, and cleared when used
	// falls below quota minus spaceHysteresis.
	overQuota bool
	// raisedByWrite: admit raised overQuota; the committer logs it.
	raisedByWrite bool
	// diskFullUntil: creates and updates are refused until then.
	diskFullUntil time.Time
	// diskFull is set when the disk was found full, and cleared by the
	// next create or update that commits.
	diskFull bool
}

// spaceHysteresis is how far below the quota the bytes in use must fall
// before writes resume: 5% of it, at most 8 MiB, so that writes do not
// flap around the quota one object at a time.
func spaceHysteresis(quota int64) int64 {
	return min(quota/20, 8<<20)
}

// writeCost estimates the bytes a create or update adds: the value in
// the kv bucket and again in its event, each with its key and revisions,
// plus bbolt's per-element headers. It errs on the large side; the exact
// figure is measured after the commit.
func writeCost(o *op) int64 {
	return 2*int64(len(o.key)+len(o.value)) + 128
}

// admit decides whether o may be applied in the transaction being built;
// pending is the cost already admitted in it. Deletes, and writes marked
// storage.ForDelete, always pass: they are how space is freed.
func (g *spaceGuard) admit(o *op, pending *int64, now time.Time) error {
	if o.kind == opDelete || storage.IsForDelete(o.ctx) {
		return nil
	}
	if g.diskFull && now.Before(g.diskFullUntil) {
		return errDiskFull
	}
	if g.quota <= 0 {
		return nil
	}
	cost := writeCost(o)
	if g.overQuota {
		return storage.ErrNoSpace
	}
	if g.used+*pending+cost > g.quota {
		// As etcd, a write that does not fit raises the alarm, unless
		// the store is far from full and only this write is too big.
		g.overQuota = g.used+*pending >= g.quota-spaceHysteresis(g.quota)
		g.raisedByWrite = g.overQuota
		return storage.ErrNoSpace
	}
	*pending += cost
	return nil
}

// measured records the bytes in use after a commit and moves the alarm;
// it returns the alarm change to log ("" when none).
func (g *spaceGuard) measured(used int64, wroteNonDelete bool) (change string) {
	g.used = used
	if g.diskFull && wroteNonDelete {
		g.diskFull = false
		change = "cleared"
	}
	if g.quota <= 0 {
		return change
	}
	switch {
	case !g.overQuota && used >= g.quota:
		g.overQuota = true
		return "raised"
	case g.overQuota && used < g.quota-spaceHysteresis(g.quota):
		g.overQuota = false
		if !g.diskFull {
			return "cleared"
		}
	}
	return change
}

// foundDiskFull starts the back-off after a commit failed for want of
// disk space.
func (g *spaceGuard) foundDiskFull(now time.Time) (raised bool) {
	raised = !g.diskFull
	g.diskFull = true
	g.diskFullUntil = now.Add(diskFullBackoff)
	return raised
}

// alarm is the alarm's name and reason now.
func (g *spaceGuard) alarm() (name, reason string) {
	switch {
	case g.diskFull:
		return storage.AlarmNoSpace, "disk full"
	case g.overQuota:
		return storage.AlarmNoSpace, "quota"
	}
	return AlarmNone, ""
}

// isDiskFull reports whether err is the file system's "no space left"
// (or a disk quota's). bbolt formats some errors with %s, which loses the
// errno, so the message is checked too.
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		strings.Contains(err.Error(), syscall.ENOSPC.Error())
}

// pathless wraps an error whose text may hold the database's path (an
// *fs.PathError from bbolt's file calls): it keeps the error for errors.Is
// and replaces the file's and its directory's paths in its text, so that
// a message sent to API clients does not tell them where the data lives.
type pathless struct {
	err  error
	path string
}

func (e *pathless) Error() string {
	msg := strings.ReplaceAll(e.err.Error(), e.path, "the database file")
	if dir := filepath.Dir(e.path); dir != "." && dir != string(filepath.Separator) {
		msg = strings.ReplaceAll(msg, dir, "the data directory")
	}
	return msg
}

func (e *pathless) Unwrap() error { return e.err }
