/*
Package boltstore is the embedded storage.Store: one bbolt file holding the
objects, a global revision and a bounded history of events.

# Basics

Open a store on a file and use it through storage.Store:

	s, err := boltstore.Open("miniapi-data/miniapi.db", boltstore.Options{})
	if err != nil {
		return err
	}
	defer s.Close()

	rev, err := s.Create(ctx, "/pods/default/web", podJSON)

Every write takes the next revision of one global counter. The revision is
written in the same bbolt transaction as the data, so it survives restarts and
never goes back, not even after a delete followed by a restart. A key keeps
the revision that created it (CreateRevision) and the one that last changed it
(ModRevision); the API server shows ModRevision as resourceVersion.

A write returns only after its transaction is fsynced. Concurrent writers
share transactions: one goroutine, the committer, takes every write queued
while the previous transaction was syncing, applies them in arrival order
(each sees the ones before it; a failed precondition fails that write alone),
commits once, records the events in the watch history and answers the
callers. Under load a transaction carries many writes for the price of one
commit. A second goroutine, the dispatcher, offers each committed batch to
the watchers in revision order while the committer runs the next
transaction.

Each write also stores its event (the new value, and the previous one) in the
events bucket under its revision, and in an in-memory ring of the same size.
The last Options.HistorySize events are kept; older ones are deleted in the
same transactions. A Watch from revision N replays the kept events after N
under its prefix, then continues live, with no gap and no duplicate between
the two. A Watch from before the kept history fails with storage.ErrExpired.
Because the history is on disk, a client may resume a watch across a restart.

A List reads in one read transaction and reports the revision it was read at.
A List at an older revision is rebuilt from the current state and the kept
history, so paging stays consistent while writes go on.

# Caveats

Prefixes are plain byte prefixes. Callers end them with "/": "/pods/a" also
matches "/pods/ab".

Watchers never slow writers. Each watcher has a buffer of
Options.WatcherBuffer events; when a new event finds it full the watch is
ended with storage.ErrWatcherTooSlow, and the client must list again. A watch
resumed from an older revision gets a buffer large enough for its backlog on
top of that.

Events and the values in them are shared by every watcher: treat them as
read-only. Values passed to Create and Update are copied.

Once a write is queued its context only matters until the committer reaches
it: a write whose context ended by then fails with the context's error and
writes nothing; after that the caller waits for the commit.

Each value is stored once. A key's record in the kv bucket refers to its
latest event while the history holds it, and takes the value back when
the history trims that event; an event refers to the one before it for its
previous value. Only the latest value of each key is kept outside the
history, so the file does not grow with churn: bbolt reuses the pages freed
by deletes and trims.
The freelist is not synced (as in etcd); opening a large file scans it.

# Space

With Options.QuotaBytes, creates and updates fail with storage.ErrNoSpace
once the bytes the file has in use (its pages minus its free pages) reach
the quota, or one does not fit near it; deletes, and writes whose context
storage.ForDelete marked, still pass, and the alarm clears itself when the
bytes in use fall a little below the quota (quota.go). A full disk (ENOSPC
from bbolt's write or fsync) fails the transaction, which bbolt rolls back;
its deletes are retried alone in the room the reserve file
(Options.DiskReserveBytes, released then) leaves, and creates and updates
resume by themselves once one commits. Error texts never name the file.

Compact trims the history if asked and rewrites the file without its free
pages, online: the committer runs it between transactions, so writes wait
and reads go on until the new file is swapped in (compact.go). Open
compacts first with Options.CompactOnOpen, or when the file is larger than
the quota.

Only one process may open a file at a time; a second Open fails after one
second.
*/
package boltstore
