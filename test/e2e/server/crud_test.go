package server

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestCRUDEveryKind creates, reads, lists, updates and deletes one object
// of every served kind with client-go's typed clients (which send
// protobuf), checking the server-set metadata on the way.
func TestCRUDEveryKind(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)

	ns, err := c.CoreV1().Namespaces().Create(ctx, namespace("crud"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns.UID == "" || ns.ResourceVersion == "" || ns.CreationTimestamp.IsZero() {
		t.Fatalf("namespace lacks server-set metadata: %+v", ns.ObjectMeta)
	}
	node, err := c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Labels = map[string]string{"zone": "a"}
	if _, err := c.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.CoreV1().Nodes().Delete(ctx, "n1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	d, err := c.AppsV1().Deployments("crud").Create(ctx, deployment("web", 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation != 1 || d.Namespace != "crud" {
		t.Fatalf("created deployment: generation %d namespace %q, want 1 and crud", d.Generation, d.Namespace)
	}
	d.Spec.Replicas = ptr(int32(3))
	d2, err := c.AppsV1().Deployments("crud").Update(ctx, d, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d2.Generation != 2 || d2.ResourceVersion == d.ResourceVersion {
		t.Fatalf("spec update: generation %d rv %s (was %s), want 2 and a new rv", d2.Generation, d2.ResourceVersion, d.ResourceVersion)
	}
	d2.Status.Replicas = 3
	d3, err := c.AppsV1().Deployments("crud").UpdateStatus(ctx, d2, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d3.Generation != 2 || d3.Status.Replicas != 3 {
		t.Fatalf("status update: generation %d status.replicas %d, want 2 and 3", d3.Generation, d3.Status.Replicas)
	}
	// A no-op update keeps the resourceVersion.
	d4, err := c.AppsV1().Deployments("crud").Update(ctx, d3, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d4.ResourceVersion != d3.ResourceVersion {
		t.Fatalf("no-op update moved resourceVersion %s → %s", d3.ResourceVersion, d4.ResourceVersion)
	}
	scale, err := c.AppsV1().Deployments("crud").GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if scale.Spec.Replicas != 3 || scale.Status.Selector != "app=web" {
		t.Fatalf("scale: %+v", scale)
	}
	scale.Spec.Replicas = 5
	if _, err := c.AppsV1().Deployments("crud").UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.AppsV1().Deployments("crud").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 5 || got.Generation != 3 {
		t.Fatalf("after scale: replicas %d generation %d, want 5 and 3", *got.Spec.Replicas, got.Generation)
	}

	rs, err := c.AppsV1().ReplicaSets("crud").Create(ctx, replicaSet("rs1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppsV1().ReplicaSets("crud").Patch(ctx, rs.Name, types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err := c.CoreV1().Pods("crud").Create(ctx, pod("p1", map[string]string{"app": "p"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	if _, err := c.CoreV1().Pods("crud").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: "web-"},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Namespace: "crud", Name: "web"},
		Reason:         "Test", Message: "hello", Type: corev1.EventTypeNormal,
	}
	ev, err = c.CoreV1().Events("crud").Create(ctx, ev, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Name) != len("web-")+5 {
		t.Fatalf("generated name %q: want web- and 5 characters", ev.Name)
	}

	lists := map[string]func() (int, error){
		"deployments": func() (int, error) {
			l, err := c.AppsV1().Deployments("crud").List(ctx, metav1.ListOptions{})
			return lenOr(l.Items, err)
		},
		"replicasets": func() (int, error) {
			l, err := c.AppsV1().ReplicaSets("crud").List(ctx, metav1.ListOptions{})
			return lenOr(l.Items, err)
		},
		"pods": func() (int, error) {
			l, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
			return lenOr(l.Items, err)
		},
		"events": func() (int, error) {
			l, err := c.CoreV1().Events("crud").List(ctx, metav1.ListOptions{})
			return lenOr(l.Items, err)
		},
	}
	for name, list := range lists {
		if n, err := list(); err != nil || n != 1 {
			t.Errorf("list %s: %d items, err %v; want 1", name, n, err)
		}
	}

	for _, del := range []func() error{
		func() error { return c.AppsV1().Deployments("crud").Delete(ctx, "web", metav1.DeleteOptions{}) },
		func() error { return c.AppsV1().ReplicaSets("crud").Delete(ctx, "rs1", metav1.DeleteOptions{}) },
		func() error { return c.CoreV1().Pods("crud").Delete(ctx, "p1", metav1.DeleteOptions{}) },
		func() error { return c.CoreV1().Events("crud").Delete(ctx, ev.Name, metav1.DeleteOptions{}) },
	} {
		if err := del(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.AppsV1().Deployments("crud").Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v, want NotFound", err)
	}
}

func lenOr[T any](items []T, err error) (int, error) { return len(items), err }

func ptr[T any](v T) *T { return &v }
