package garbagecollector

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

func setup(t *testing.T, objs ...runtime.Object) (*Collector, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Config{Client: client, Informers: inf})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, inf)
	client.ClearActions()
	return c, client
}

func ref(kind, name string, uid types.UID, block bool) metav1.OwnerReference {
	api := "apps/v1"
	if kind == "Pod" {
		api = "v1"
	}
	return metav1.OwnerReference{APIVersion: api, Kind: kind, Name: name, UID: uid, Controller: &block, BlockOwnerDeletion: &block}
}

func deploy(name string, uid types.UID, finalizers ...string) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: uid, Finalizers: finalizers}}
	if len(finalizers) > 0 {
		now := metav1.Now()
		d.DeletionTimestamp = &now
	}
	return d
}

func rs(name string, uid types.UID, owners ...metav1.OwnerReference) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: uid, OwnerReferences: owners}}
}

func pod(name string, owners ...metav1.OwnerReference) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name), OwnerReferences: owners}}
}

func deletes(client *fake.Clientset) map[string]metav1.DeletionPropagation {
	out := map[string]metav1.DeletionPropagation{}
	for _, a := range client.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok {
			p := metav1.DeletionPropagation("")
			if d.DeleteOptions.PropagationPolicy != nil {
				p = *d.DeleteOptions.PropagationPolicy
			}
			out[d.Resource.Resource+"/"+d.Name] = p
		}
	}
	return out
}

func TestBackgroundDeletesOrphansOnly(t *testing.T) {
	c, client := setup(t,
		deploy("web", "d-uid"),
		rs("owned", "rs1", ref("Deployment", "web", "d-uid", true)),
		rs("orphan", "rs2", ref("Deployment", "gone", "gone-uid", true)),
		rs("stale-uid", "rs3", ref("Deployment", "web", "old-uid", true)), // same name, new object
		pod("foreign-owner", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Thing", Name: "t", UID: "x"}),
	)
	for _, k := range []string{"replicasets/default/owned", "replicasets/default/orphan", "replicasets/default/stale-uid", "pods/default/foreign-owner"} {
		if err := c.Reconcile(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	got := deletes(client)
	want := map[string]metav1.DeletionPropagation{"replicasets/orphan": "Background", "replicasets/stale-uid": "Background"}
	if len(got) != len(want) || got["replicasets/orphan"] != "Background" || got["replicasets/stale-uid"] != "Background" {
		t.Errorf("deleted %v, want %v", got, want)
	}
}

func TestBackgroundStripsDanglingReferenceWhenAnOwnerRemains(t *testing.T) {
	c, client := setup(t, rs("live", "rs1"), pod("p", ref("ReplicaSet", "live", "rs1", false), ref("ReplicaSet", "gone", "rs0", false)))
	if err := c.Reconcile(context.Background(), "pods/default/p"); err != nil {
		t.Fatal(err)
	}
	p, err := client.CoreV1().Pods("default").Get(context.Background(), "p", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("pod with a live owner was deleted: %v", err)
	}
	if len(p.OwnerReferences) != 1 || p.OwnerReferences[0].UID != "rs1" {
		t.Errorf("ownerReferences = %+v, want only the live owner", p.OwnerReferences)
	}
}

// waitGone waits until no informer cache of c holds key.
func waitGone(t *testing.T, c *Collector, key string) {
	t.Helper()
	gone := func(context.Context) (bool, error) {
		for _, k := range c.currentKinds() {
			if _, ok, _ := k.informer.GetIndexer().GetByKey(key); ok {
				return false, nil
			}
		}
		return true, nil
	}
	if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, gone); err != nil {
		t.Fatalf("%s still in the cache after %v", key, clienttest.Timeout)
	}
}

func TestForegroundDeletesDependentsThenDropsFinalizer(t *testing.T) {
	c, client := setup(t,
		deploy("web", "d-uid", FinalizerForeground),
		rs("web-1", "rs1", ref("Deployment", "web", "d-uid", true)),
		pod("web-1-a", ref("ReplicaSet", "web-1", "rs1", true)),
	)
	ctx := context.Background()
	if err := c.Reconcile(ctx, "deployments/default/web"); err != nil {
		t.Fatal(err)
	}
	if got := deletes(client); len(got) != 1 || got["replicasets/web-1"] != metav1.DeletePropagationForeground {
		t.Errorf("deletes = %v, want replicasets/web-1 in the foreground (it has dependents)", got)
	}
	d, _ := client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if len(d.Finalizers) != 1 {
		t.Fatalf("finalizer removed while a blocking dependent is left: %v", d.Finalizers)
	}
	waitGone(t, c, "default/web-1")
	if err := c.Reconcile(ctx, "deployments/default/web"); err != nil {
		t.Fatal(err)
	}
	d, _ = client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if len(d.Finalizers) != 0 {
		t.Errorf("finalizers = %v after the dependents are gone, want none", d.Finalizers)
	}
}

func TestForegroundWaitsOnlyForBlockingDependents(t *testing.T) {
	c, client := setup(t,
		deploy("web", "d-uid", FinalizerForeground, "example.com/other"),
		rs("loose", "rs1", ref("Deployment", "web", "d-uid", false)),
	)
	if err := c.Reconcile(context.Background(), "deployments/default/web"); err != nil {
		t.Fatal(err)
	}
	if got := deletes(client); got["replicasets/loose"] != metav1.DeletePropagationBackground {
		t.Errorf("deletes = %v, want the non-blocking dependent deleted", got)
	}
	d, _ := client.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	if len(d.Finalizers) != 1 || d.Finalizers[0] != "example.com/other" {
		t.Errorf("finalizers = %v, want only the foreign one left", d.Finalizers)
	}
}

func TestOrphanStripsReferencesThenDropsFinalizer(t *testing.T) {
	c, client := setup(t,
		deploy("web", "d-uid", FinalizerOrphan),
		rs("web-1", "rs1", ref("Deployment", "web", "d-uid", true)),
		pod("web-1-a", ref("ReplicaSet", "web-1", "rs1", true)),
	)
	ctx := context.Background()
	if err := c.Reconcile(ctx, "deployments/default/web"); err != nil {
		t.Fatal(err)
	}
	if got := deletes(client); len(got) != 0 {
		t.Errorf("orphaning deleted %v", got)
	}
	r, _ := client.AppsV1().ReplicaSets("default").Get(ctx, "web-1", metav1.GetOptions{})
	if len(r.OwnerReferences) != 0 {
		t.Errorf("replicaset still has ownerReferences %+v", r.OwnerReferences)
	}
	p, _ := client.CoreV1().Pods("default").Get(ctx, "web-1-a", metav1.GetOptions{})
	if len(p.OwnerReferences) != 1 {
		t.Errorf("the pod's own owner was touched: %+v", p.OwnerReferences)
	}
	d, _ := client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if len(d.Finalizers) != 0 {
		t.Errorf("finalizers = %v, want none", d.Finalizers)
	}
}
