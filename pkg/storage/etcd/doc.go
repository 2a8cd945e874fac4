/*
Package etcd is the storage.Store kept in etcd v3, for running several
miniapi processes on one etcd (--etcd-servers).

	s, err := etcd.Open(ctx, etcd.Options{Endpoints: []string{"http://127.0.0.1:2379"}})

Revisions are etcd's own: a key's ModRevision is its mod_revision, so every
process on the same etcd shows the same resourceVersions. Keys are stored
under Options.Prefix ("/miniapi" + "/pods/default/web").

Create is a transaction on create_revision == 0, Update a compare-and-swap
on mod_revision, Delete a transaction returning the previous value. List is
one range request, at a revision when asked (etcd answers from its MVCC
history until compaction). Watch is one etcd watch per call with the
previous values; all of a store's watches share the client's gRPC stream.
A Watch or List from a compacted revision fails with an
*storage.ExpiredError naming etcd's compaction revision.

Revision is the highest revision seen in any response (writes, reads,
watches, progress), refreshed by a count-only read every
RevisionPollInterval, so it costs nothing to call and trails writes of other
processes by at most that interval.

Every call has a deadline (RequestTimeout): an unreachable etcd gives
storage.ErrTimeout or storage.ErrUnavailable, which the API answers with 504
or 503. Close stops the watches, the loops (revision poll, progress requests,
compaction) and the client.

Not done yet: one etcd watch per watched prefix fanned out to the store's
watchers (today each Watch is its own etcd watch).
*/
package etcd
