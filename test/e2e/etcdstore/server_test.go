package etcdstore

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// startOnEtcd runs bin/miniapi storing in the etcd at endpoint.
func startOnEtcd(t *testing.T, endpoint string, args ...string) (*harness.Server, kubernetes.Interface) {
	t.Helper()
	s := harness.Start(t, append([]string{"--etcd-servers", endpoint}, args...)...)
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return s, kubernetes.NewForConfigOrDie(cfg)
}

func configMap(name, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": value}}
}

// TestTwoServersOnOneEtcd: two miniapi processes on one etcd serve the same
// objects, and a write through one reaches the other's watches, in order,
// with the resourceVersion the writer answered. The second process runs
// no controllers, so that only one set acts on the objects.
func TestTwoServersOnOneEtcd(t *testing.T) {
	endpoint, stop := startEtcd(t, t.TempDir())
	t.Cleanup(stop)
	_, a := startOnEtcd(t, endpoint)
	_, b := startOnEtcd(t, endpoint, "--controllers=false")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Create through A; B gets and lists it at the same resourceVersion.
	first, err := a.CoreV1().ConfigMaps("default").Create(ctx, configMap("first", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.CoreV1().ConfigMaps("default").Get(ctx, "first", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("B does not see A's create: %v", err)
	}
	if got.ResourceVersion != first.ResourceVersion || got.UID != first.UID {
		t.Fatalf("B got rv %s uid %s, A wrote rv %s uid %s", got.ResourceVersion, got.UID, first.ResourceVersion, first.UID)
	}
	list, err := b.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Items); n != 1 || list.Items[0].ResourceVersion != first.ResourceVersion {
		t.Fatalf("B lists %d configmaps (%+v), want first at %s", n, list.Items, first.ResourceVersion)
	}

	// B watches from its list; A writes; B sees each write with A's rv.
	wb, err := b.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Stop()
	second, err := a.CoreV1().ConfigMaps("default").Create(ctx, configMap("second", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second.Data["v"] = "2"
	updated, err := a.CoreV1().ConfigMaps("default").Update(ctx, second, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CoreV1().ConfigMaps("default").Delete(ctx, "first", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect(t, wb, watch.Added, "second", second.ResourceVersion)
	expect(t, wb, watch.Modified, "second", updated.ResourceVersion)
	expect(t, wb, watch.Deleted, "first", "")

	// And the other way round: A watches, B writes.
	wa, err := a.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: updated.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer wa.Stop()
	third, err := b.CoreV1().ConfigMaps("default").Create(ctx, configMap("third", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, wa, watch.Deleted, "first", "")
	expect(t, wa, watch.Added, "third", third.ResourceVersion)

	// An update through B with A's stale resourceVersion conflicts.
	second.Data["v"] = "stale"
	if _, err := b.CoreV1().ConfigMaps("default").Update(ctx, second, metav1.UpdateOptions{}); err == nil {
		t.Fatal("B accepted an update at a resourceVersion A had replaced")
	}
}

// expect reads the next event, skipping bookmarks, and checks it. An
// empty rv is not checked (a delete's rv is the delete's revision).
func expect(t *testing.T, w watch.Interface, typ watch.EventType, name, rv string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch ended waiting for %s %s", typ, name)
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if ev.Type != typ || !ok || cm.Name != name || (rv != "" && cm.ResourceVersion != rv) {
				t.Fatalf("got %s %T, want %s %s at rv %q", ev.Type, ev.Object, typ, name, rv)
			}
			return
		case <-timeout:
			t.Fatalf("no %s %s within 30 s", typ, name)
		}
	}
}
