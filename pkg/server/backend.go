package server

import (
	"context"
	"path/filepath"

	"github.com/miniapi/miniapi/pkg/apiserver"
	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
	"github.com/miniapi/miniapi/pkg/storage/etcd"
)

// openBackend opens the storage backend the configuration names: etcd
// when EtcdServers is set, else the bbolt file in the data dir.
func (s *Server) openBackend(ctx context.Context, metrics *apiserver.Metrics) (storage.Store, error) {
	if len(s.cfg.EtcdServers) == 0 {
		opts := boltstore.Options{
			HistorySize: s.cfg.WatchHistory, Logger: s.log, OnCommit: metrics.ObserveCommit, NoSync: s.cfg.UnsafeNoFsync,
			QuotaBytes: s.cfg.QuotaBackendBytes, CompactOnOpen: s.cfg.CompactOnStart,
		}
		if !s.cfg.UnsafeNoFsync {
			// A throwaway test server (no fsync) does not need room for
			// deletes on a full disk, nor to write 16 MiB at start.
			opts.DiskReserveBytes = diskReserveBytes
		}
		return boltstore.Open(filepath.Join(s.cfg.DataDir, "miniapi.db"), opts)
	}
	tlsCfg, err := etcd.TLSConfig(s.cfg.EtcdCAFile, s.cfg.EtcdCertFile, s.cfg.EtcdKeyFile)
	if err != nil {
		return nil, err
	}
	s.log.Info("storing in etcd", "servers", s.cfg.EtcdServers, "prefix", s.cfg.EtcdPrefix)
	return etcd.Open(ctx, etcd.Options{
		Endpoints:          s.cfg.EtcdServers,
		Prefix:             s.cfg.EtcdPrefix,
		TLS:                tlsCfg,
		CompactionInterval: s.cfg.EtcdCompactionInterval,
		Logger:             s.log,
	})
}
