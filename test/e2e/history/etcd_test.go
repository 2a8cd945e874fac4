package history

import (
	"context"
	"errors"
	"net"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/miniapi/miniapi/pkg/apiserver/history"
	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/etcd"
)

// openEtcdStore runs a single-member embedded etcd on loopback and opens
// the etcd storage backend on it.
func openEtcdStore(t *testing.T) *etcd.Store {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Name = "history"
	cfg.Dir = filepath.Join(t.TempDir(), "etcd")
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.UnsafeNoFsync = true
	client, peer := freeURL(t), freeURL(t)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		t.Fatal("etcd did not become ready in 30 s")
	}
	s, err := etcd.Open(context.Background(), etcd.Options{Endpoints: []string{client.String()}, Prefix: "/history",
		ProgressInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// freeURL is a loopback URL on a port that was free a moment ago (etcd's
// cluster configuration names its peer URL before it listens).
func freeURL(t *testing.T) url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}
}

// TestReadOnEtcd: the history replay works on the etcd backend as on
// bbolt: exactly the key's revisions, its delete, and after a compaction
// the state before the oldest kept change.
func TestReadOnEtcd(t *testing.T) {
	ctx := context.Background()
	s := openEtcdStore(t)
	ok := func(rev int64, err error) int64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	r := ok(s.Create(ctx, "/cm/web", []byte("v1")))
	ok(s.Create(ctx, "/cm/web-1", []byte("other")))
	r = ok(s.Update(ctx, "/cm/web", []byte("v2"), r))
	r = ok(s.Update(ctx, "/cm/web", []byte("v3"), r))

	revs, err := history.Read(ctx, s, "/cm/web")
	if err != nil {
		t.Fatal(err)
	}
	if got := values(revs); got != "v1 v2 v3" || revs[0].KV.CreateRevision != revs[0].KV.ModRevision || revs[2].KV.ModRevision != r {
		t.Errorf("web: %s %+v", got, revs)
	}

	// After a compaction to v3's revision, v3 is the oldest state kept.
	ok(s.Update(ctx, "/cm/web", []byte("v4"), r))
	if err := s.Compact(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, "/cm/web", 0); err != nil {
		t.Fatal(err)
	}
	revs, err = history.Read(ctx, s, "/cm/web")
	if err != nil {
		t.Fatal(err)
	}
	if got := values(revs); got != "v3 v4 v4" || !revs[0].Oldest || !revs[2].Deleted {
		t.Errorf("after compaction and delete: %s %+v", got, revs)
	}
	if _, err := history.Read(ctx, s, "/cm/nope"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a key that never was: %v", err)
	}
}

func values(revs []history.Revision) string {
	var out []byte
	for i, r := range revs {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, r.KV.Value...)
	}
	return string(out)
}
