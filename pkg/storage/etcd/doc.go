/*
Package etcd is the storage.Store kept in etcd v3, for running several
miniapi processes on one etcd (--etcd-servers).

	s, err := etcd.Open(ctx, etcd.Options{Endpoints: []string{"http://127.0.0.1:2379"}})

Revisions are etcd's own: a key's ModRevision is its mod_revision, so every
process on the same etcd shows the same resourceVersions. Keys are stored
under Options.Prefix ("/miniapi" + "/core/pods/default/web").

Create is a transaction on create_revision == 0, Update a compare-and-swap
on mod_revision, Delete a transaction returning the previous value. List is
one range request, at a revision when asked (etcd answers from its MVCC
history until compaction). A Watch or List from a compacted revision fails
with an *storage.ExpiredError naming etcd's compaction revision.

Watches share one etcd watch per watched resource (feed.go). The API
server's keys are "/<group>/<resource>/[<namespace>/]<name>", so a watch
of "/core/pods/" or "/core/pods/default/" joins the feed of "/core/pods/":
one etcd watch with the previous values and progress notifications,
opened by the first watch of the resource and closed when its last watch
stops. The feed fans each etcd response out to its watchers, each
filtering by its own prefix and skipping what is at or before its start
revision. The feed never waits for a watcher: it appends to the watcher's
queue, and the watcher's own goroutine moves the queue to its channel,
waiting up to SlowWatcherGrace for a reader whose buffer is full before
ending the watch with storage.ErrWatcherTooSlow (as does a queue grown
past eight buffers while the reader is behind), so a slow reader delays
neither the feed nor the other watchers.

A feed keeps its last FeedHistory events, so a Watch from a revision the
feed has already passed (a client resuming from a list a moment old) is
replayed from memory, then goes on live without a gap or a duplicate. A
Watch from before what the feed keeps gets an etcd watch of its own, as
every watch had before feeds; a compacted revision fails either way,
checked before the watch opens. A Watch returns once its etcd watch
exists (at most RequestTimeout), as a watch of etcd's client does.
Progress notifications go to every watcher of a feed as storage.Progress
events. When a feed's etcd watch fails (etcd compacted what the feed had
still to read, or its member lost the cluster), every watcher of it ends
with the error, as its own etcd watch would have (410 or a closed watch
for the API's clients, which then list again), and the next Watch of the
resource opens a fresh feed. All feeds share the client's gRPC stream.

Revision is the highest revision seen in any response (writes, reads,
watches, progress), refreshed by a count-only read every
RevisionPollInterval, so it costs nothing to call and trails writes of other
processes by at most that interval.

Every call has a deadline (RequestTimeout): an unreachable etcd gives
storage.ErrTimeout or storage.ErrUnavailable, which the API answers with 504
or 503. Close stops the watches, the loops (revision poll, progress requests,
compaction) and the client; no goroutine of the store outlives it.
*/
package etcd
