package etcdcluster

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestCompactedResourceVersion: once etcd has compacted its history past
// a resourceVersion, every server answers a watch from it with an
// Expired Status (410) in the watch stream, as kube-apiserver does, and
// a list at exactly it with 410; and a client-go informer whose watch
// must resume from a compacted resourceVersion relists and goes on: it
// learns of what it missed (a delete only as a tombstone, the sign of a
// relist) and sees what is created afterwards.
func TestCompactedResourceVersion(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ec := etcdClient(t, c.etcd)
	const ns = "default"
	old := create(ctx, t, c.clients[0], ns, "old")
	create(ctx, t, c.clients[1], ns, "newer")
	compact(ctx, t, ec)

	for i, client := range c.clients {
		w, err := client.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: old.rv})
		if err != nil {
			t.Fatalf("watch through server %d from compacted rv %s: %v; want the 410 in the stream", i, old.rv, err)
		}
		ev := <-w.ResultChan()
		w.Stop()
		if err := apierrors.FromObject(ev.Object); ev.Type != watch.Error || !apierrors.IsResourceExpired(err) {
			t.Errorf("watch through server %d from compacted rv %s: first event %s %v, want ERROR 410 Expired", i, old.rv, ev.Type, ev.Object)
		}
		_, err = client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{
			ResourceVersion: old.rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if !apierrors.IsResourceExpired(err) {
			t.Errorf("list through server %d at compacted rv %s: %v, want 410 Expired", i, old.rv, err)
		}
	}

	t.Run("informer relists", func(t *testing.T) { testInformerRelists(ctx, t, c, ec) })
}

// testInformerRelists runs an informer on server 0 and kills that
// server (a clean stop would answer the informer's next watch with "the
// server is shutting down", and it would relist without needing to);
// while it is down, ConfigMap "old" is deleted, "missed" created
// and the history compacted. When the server is back the informer's
// watch resumes from a compacted resourceVersion, gets 410 and relists.
func testInformerRelists(ctx context.Context, t *testing.T, c *cluster, ec *clientv3.Client) {
	var expired atomic.Int32
	lw := configMapWatch(c.clients[0], "default")
	watchFn := lw.WatchFuncWithContext
	lw.WatchFuncWithContext = func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		w, err := watchFn(ctx, opts)
		if err != nil {
			return w, err
		}
		return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
			if ev.Type == watch.Error && apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
				expired.Add(1)
			}
			return ev, true
		}), nil
	}
	rec := startInformer(t, lw)
	// An event first: a watch that ends within a second of its start with
	// nothing received is relisted at once by the reflector, not resumed.
	seenFirst := create(ctx, t, c.clients[1], "default", "seen-first")
	waitFor(t, 30*time.Second, "the informer sees seen-first", func() bool { return slices.Contains(rec.snapshot(), seenFirst) })

	c.servers[0].Kill()
	cms := c.clients[1].CoreV1().ConfigMaps("default")
	if err := cms.Delete(ctx, "old", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	missed := create(ctx, t, c.clients[1], "default", "missed")
	compact(ctx, t, ec)
	c.servers[0].Restart()

	// The relist reports what the informer missed: "missed" as ADDED,
	// "old" as a tombstone (and "newer", unchanged, as MODIFIED).
	waitFor(t, 60*time.Second, "the informer's watch gets 410 and it relists", func() bool {
		got := rec.snapshot()
		return expired.Load() > 0 && slices.Contains(got, seen{"TOMBSTONE", "default/old", ""}) && slices.Contains(got, missed)
	})
	afterwards := create(ctx, t, c.clients[2], "default", "afterwards")
	waitFor(t, 30*time.Second, "the informer sees a ConfigMap created after the relist", func() bool {
		return slices.Contains(rec.snapshot(), afterwards)
	})
}

// compact makes etcd discard its history before its current revision.
func compact(ctx context.Context, t *testing.T, ec *clientv3.Client) {
	t.Helper()
	resp, err := ec.Get(ctx, "compaction-probe", clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ec.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
}
