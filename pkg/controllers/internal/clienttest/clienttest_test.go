package clienttest

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
}

// After Start, a delete made at once still reaches the cache: the fake's
// watch would not replay it had it been opened after the delete.
func TestStartReturnsWithWatchesOpen(t *testing.T) {
	client := fake.NewClientset(pod("a"), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}})
	factory := informers.NewSharedInformerFactory(client, 0)
	pods := factory.Core().V1().Pods().Informer()
	factory.Core().V1().Nodes().Informer()
	Start(t, client, factory)
	if got := watched(client).Len(); got != 2 {
		t.Fatalf("%d resources watched after Start, want 2 (pods, nodes)", got)
	}
	if err := client.CoreV1().Pods("default").Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, Timeout, true, func(context.Context) (bool, error) {
		_, exists, _ := pods.GetIndexer().GetByKey("default/a")
		return !exists, nil
	})
	if err != nil {
		t.Error("the pod deleted after Start is still in the cache")
	}
}

func TestWritesKeepsOnlyWrites(t *testing.T) {
	client := fake.NewClientset(pod("a"))
	ctx := context.Background()
	pods := client.CoreV1().Pods("default")
	_, _ = pods.Get(ctx, "a", metav1.GetOptions{})
	_, _ = pods.List(ctx, metav1.ListOptions{})
	w, _ := pods.Watch(ctx, metav1.ListOptions{})
	w.Stop()
	_, _ = pods.Create(ctx, pod("b"), metav1.CreateOptions{})
	_, _ = pods.Patch(ctx, "a", types.MergePatchType, []byte(`{"status":{"phase":"Running"}}`), metav1.PatchOptions{}, "status")
	_, _ = pods.UpdateStatus(ctx, pod("b"), metav1.UpdateOptions{})
	_ = pods.Delete(ctx, "b", metav1.DeleteOptions{})
	_ = pods.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_, _ = client.CoreV1().Namespaces().Finalize(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.UpdateOptions{})

	want := "[create pods default/b, patch pods/status default/a, update pods/status default/b, " +
		"delete pods default/b, delete-collection pods default, create namespaces/finalize x]"
	if got := Writes(client).String(); got != want {
		t.Errorf("Writes = %s\nwant      %s", got, want)
	}
}

// A watch that replays the objects the fake holds sends copies: trimming
// what it sent, as an informer's transform may, leaves the fake's object
// as it was.
func TestCopyWatchedObjects(t *testing.T) {
	client := fake.NewClientset(pod("a"))
	CopyWatchedObjects(&client.Fake, client.Tracker())
	ctx := context.Background()
	w, err := client.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		ev.Object.(*corev1.Pod).Name = "trimmed"
	case <-time.After(Timeout):
		t.Fatal("the watch replayed nothing")
	}
	got, err := client.CoreV1().Pods("default").Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "a" {
		t.Errorf("the fake's pod is now named %q, as the watched one", got.Name)
	}
}
