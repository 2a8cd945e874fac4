// Package etcdstore tests the etcd storage backend against an embedded
// etcd: the storage conformance suite, and the real bin/miniapi started
// with --etcd-servers. The embedded etcd (go.etcd.io/etcd/server) is a
// heavy dependency, so it lives in the test module only.
package etcdstore

import (
	"net"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// startEtcd runs a single-member etcd keeping its data in dir, on free
// loopback ports. stop ends it.
func startEtcd(t testing.TB, dir string) (endpoint string, stop func()) {
	t.Helper()
	return runEtcd(t, dir, true)
}

// startEtcdSynced is startEtcd with fsync on, as a real etcd (benchmarks).
func startEtcdSynced(t testing.TB, dir string) (endpoint string, stop func()) {
	t.Helper()
	return runEtcd(t, dir, false)
}

func runEtcd(t testing.TB, dir string, noFsync bool) (endpoint string, stop func()) {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Name = "test"
	cfg.Dir = filepath.Join(dir, "etcd")
	// embed logs its listeners' "use of closed network connection" at
	// error level on every Close: keep the test output readable.
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.UnsafeNoFsync = noFsync
	client, peer := freeURL(t), freeURL(t)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		t.Fatal("etcd did not become ready in 30 s")
	}
	return client.String(), e.Close
}

// freeURL is a loopback URL on a port that was free a moment ago. etcd
// needs its peer URL before it listens (the cluster configuration names
// it), so port 0 does not do.
func freeURL(t testing.TB) url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}
}
