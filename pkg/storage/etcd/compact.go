package etcd

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactKey records the last compaction. Its version is the compaction
// "term": a process compacts only if it is the one that moved the key from
// the version it last saw, so several processes sharing an etcd (several
// miniapis, or a kube-apiserver, which uses the same key and rule)
// compact once per interval between them. It is outside every prefix on
// purpose: compaction is global to etcd.
const compactKey = "compact_rev_key"

// compactLoop compacts every interval to the revision seen at the
// previous tick, so that at least one interval of history stays
// watchable.
func (s *Store) compactLoop(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var version, rev int64
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		version, rev = s.compactOnce(version, rev)
	}
}

// compactOnce claims this term by moving compactKey from version to
// version+1 and, if that worked, compacts to rev. It returns the version
// and the revision for the next term.
func (s *Store) compactOnce(version, rev int64) (int64, int64) {
	c, cancel := context.WithTimeout(s.ctx, s.opts.RequestTimeout)
	defer cancel()
	resp, err := s.client.Txn(c).
		If(clientv3.Compare(clientv3.Version(compactKey), "=", version)).
		Then(clientv3.OpPut(compactKey, strconv.FormatInt(rev, 10))).
		Else(clientv3.OpGet(compactKey)).
		Commit()
	if err != nil {
		if s.ctx.Err() == nil {
			s.log.Warn("etcd compaction", "err", err)
		}
		return version, rev
	}
	s.observe(resp.Header.Revision)
	next := resp.Header.Revision
	if !resp.Succeeded {
		// Another process compacted this term; follow its version.
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			return kvs[0].Version, next
		}
		return 0, next
	}
	if rev > 0 {
		if err := s.Compact(c, rev); err != nil {
			s.log.Warn("etcd compaction", "revision", rev, "err", err)
		} else {
			s.log.Debug("etcd compacted", "revision", rev)
		}
	}
	return version + 1, next
}

// Compact discards etcd's history before rev. A revision already
// compacted is not an error.
func (s *Store) Compact(ctx context.Context, rev int64) error {
	c, cancel, err := s.op(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = s.client.Compact(c, rev)
	if errors.Is(err, rpctypes.ErrCompacted) {
		return nil
	}
	return mapError(ctx, "compact", err)
}
