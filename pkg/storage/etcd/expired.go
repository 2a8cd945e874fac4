package etcd

import (
	"context"
	"errors"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/pkg/storage"
)

// checkWatchable answers an *storage.ExpiredError when revision rev was
// compacted away. etcd reports a compacted watch only on the watch stream,
// after the watch was created; a count-only read at rev fails the same way
// right away, so Watch can fail synchronously as the contract says.
func (s *Store) checkWatchable(ctx context.Context, rev int64) error {
	c, cancel, err := s.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	resp, err := s.client.Get(c, s.prefix+"\x00revision", clientv3.WithCountOnly(), clientv3.WithRev(rev))
	err = mapError(ctx, "watch", err)
	switch {
	case err == nil:
		s.observe(resp.Header.Revision)
		return nil
	case errors.Is(err, storage.ErrFutureRevision):
		return nil // etcd watches from future revisions, and so do we
	case errors.Is(err, storage.ErrExpired):
		return s.expired(ctx, rev)
	}
	return err
}

// expired builds the ExpiredError for revision rev, naming etcd's oldest
// kept revision. A range error does not carry it; a watch from revision 1
// is answered with it at once (its CompactRevision), so one short watch
// finds it. Oldest stays 0 if etcd does not say in time.
func (s *Store) expired(ctx context.Context, rev int64) error {
	e := &storage.ExpiredError{Requested: rev}
	c, cancel, err := s.op(ctx)
	if err != nil {
		return e
	}
	defer cancel()
	for resp := range s.client.Watch(c, s.prefix+"\x00compaction-probe", clientv3.WithRev(1)) {
		if resp.CompactRevision != 0 {
			e.Oldest = resp.CompactRevision
			return e
		}
		if resp.Err() != nil {
			return e
		}
	}
	return e
}
