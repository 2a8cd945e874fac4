package lifecycle

import (
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// Deleting a namespace marks it Terminating, removes everything in it
// (pods through the kubelet's graceful path), then removes the namespace.
func TestNamespaceDeletionRemovesContentsThenItself(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--nodes=1", "--pod-ready-delay=500ms")
	c := s.Client()
	ctx := ctxFor(t)
	readyNodes(t, c, 1)
	const ns = "doomed"
	created, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, deployment("web", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Pods(ns).Create(ctx, pod("bare"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Kinds the namespace controller finds through discovery, Services
	// among them, which have no deletecollection.
	if _, err := c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "conf"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoordinationV1().Leases(ns).Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "leader"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A neighbour that must survive.
	if _, err := c.CoreV1().Pods("default").Create(ctx, pod("neighbour"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, func() (bool, string) {
		l, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		ready := 0
		for i := range l.Items {
			if podReady(&l.Items[i]) {
				ready++
			}
		}
		return ready == 3, fmt.Sprintf("%d of 3 pods ready in %s", ready, ns)
	})

	w, err := c.CoreV1().Namespaces().Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + ns, ResourceVersion: created.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := c.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Terminating while its pods stop, then gone.
	if n := markedThenGone(t, w, 20*time.Second).(*corev1.Namespace); n.Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("deleted namespace: phase %q, want Terminating", n.Status.Phase)
	}
	pods, _ := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	rss, _ := c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	deps, _ := c.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	evs, _ := c.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	svcs, _ := c.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	cms, _ := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	leases, _ := c.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
	if left := len(pods.Items) + len(rss.Items) + len(deps.Items) + len(evs.Items) + len(svcs.Items) + len(cms.Items) + len(leases.Items); left != 0 {
		t.Errorf("after the namespace went: %d pods, %d replicasets, %d deployments, %d events, %d services, %d configmaps, %d leases left in it",
			len(pods.Items), len(rss.Items), len(deps.Items), len(evs.Items), len(svcs.Items), len(cms.Items), len(leases.Items))
	}
	if _, err := c.CoreV1().Pods("default").Get(ctx, "neighbour", metav1.GetOptions{}); err != nil {
		t.Errorf("pod in another namespace: %v", err)
	}
}
