package apiserver

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// TestInformerSeesAddUpdateDelete runs a client-go SharedInformer (which
// uses a streaming list and a protobuf watch) against the server.
func TestInformerSeesAddUpdateDelete(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	pre := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "before"}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, pre, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 100)
	f := informers.NewSharedInformerFactory(c, 0)
	inf := f.Core().V1().Namespaces().Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { events <- "add " + o.(*corev1.Namespace).Name },
		UpdateFunc: func(_, o any) { events <- "update " + o.(*corev1.Namespace).Name },
		DeleteFunc: func(o any) {
			if ns, ok := o.(*corev1.Namespace); ok {
				events <- "delete " + ns.Name
			}
		},
	})
	f.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	if n := len(inf.GetStore().List()); n != 5 {
		t.Fatalf("synced %d namespaces, want 5", n)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "later"}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.CoreV1().Namespaces().Get(ctx, "later", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Labels = map[string]string{"x": "y"}
	if _, err := c.CoreV1().Namespaces().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// "before" has the kubernetes finalizer only if the strategy adds it;
	// delete a namespace created without spec.finalizers via finalize.
	want := map[string]bool{"add later": false, "update later": false}
	deadline := time.After(10 * time.Second)
	for {
		done := true
		for _, seen := range want {
			done = done && seen
		}
		if done {
			break
		}
		select {
		case e := <-events:
			if _, ok := want[e]; ok {
				want[e] = true
			}
		case <-deadline:
			t.Fatalf("informer events missing: %v", want)
		}
	}
}
