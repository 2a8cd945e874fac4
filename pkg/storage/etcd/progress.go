package etcd

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// requestProgress asks etcd every interval to send a progress
// notification to every watch of this store, so that idle watchers learn
// the current revision (storage.Progress, the API's bookmarks). etcd's
// own notifications (WithProgressNotify) come only every ten minutes by
// default. The request goes to the watch stream of the watches' context
// metadata (RequireLeader), which is the stream they all share.
func (s *Store) requestProgress(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		c, cancel := context.WithTimeout(clientv3.WithRequireLeader(s.ctx), s.opts.RequestTimeout)
		if err := s.client.RequestProgress(c); err != nil && s.ctx.Err() == nil {
			s.log.Debug("etcd progress request", "err", err)
		}
		cancel()
	}
}
