package node

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

func newTestController(t *testing.T, count int, objs ...runtime.Object) (*Controller, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Config{Count: count, Client: client, Informers: inf,
		Clock: clocktesting.NewFakeClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, inf)
	client.ClearActions()
	return c, client
}

func TestAddresses(t *testing.T) {
	for _, tc := range []struct {
		i          int
		ip, podNet string
	}{
		{1, "10.0.0.1", "10.244.0.0/20"},
		{2, "10.0.0.2", "10.244.16.0/20"},
		{3, "10.0.0.3", "10.244.32.0/20"},
		{MaxCount, "10.0.0.192", "10.255.240.0/20"},
	} {
		if got := InternalIP(tc.i); got != tc.ip {
			t.Errorf("InternalIP(%d) = %s, want %s", tc.i, got, tc.ip)
		}
		if got := PodCIDR(tc.i); got != tc.podNet {
			t.Errorf("PodCIDR(%d) = %s, want %s", tc.i, got, tc.podNet)
		}
	}
}

func TestNewRejectsBadCount(t *testing.T) {
	client := fake.NewClientset()
	for _, n := range []int{-1, MaxCount + 1} {
		if _, err := New(Config{Count: n, Client: client, Informers: informers.NewSharedInformerFactory(client, 0)}); err == nil {
			t.Errorf("New(Count=%d) succeeded, want an error", n)
		}
	}
}

func TestReconcileCreatesMissingNodeReady(t *testing.T) {
	c, client := newTestController(t, 2)
	if err := c.Reconcile(context.Background(), "miniapi-node-2"); err != nil {
		t.Fatal(err)
	}
	n, err := client.CoreV1().Nodes().Get(context.Background(), "miniapi-node-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !Ready(n) {
		t.Errorf("node is not Ready: %+v", n.Status.Conditions)
	}
	for k, v := range map[string]string{"kubernetes.io/hostname": "miniapi-node-2", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"} {
		if n.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, n.Labels[k], v)
		}
	}
	if q := n.Status.Allocatable[corev1.ResourcePods]; q.Value() != 110 {
		t.Errorf("allocatable pods = %s, want 110", q.String())
	}
	if n.Status.NodeInfo.KubeletVersion != "v1.37.2" {
		t.Errorf("kubeletVersion = %q", n.Status.NodeInfo.KubeletVersion)
	}
	if n.Status.Addresses[0] != (corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.2"}) {
		t.Errorf("addresses = %+v", n.Status.Addresses)
	}
}

func TestReconcileHealthyNodeWritesNothing(t *testing.T) {
	existing := Desired(1, metav1.Now())
	c, client := newTestController(t, 1, existing)
	if err := c.Reconcile(context.Background(), "miniapi-node-1"); err != nil {
		t.Fatal(err)
	}
	if w := clienttest.Writes(client); len(w) != 0 {
		t.Errorf("healthy node caused writes: %v", w)
	}
}

func TestReconcileRepairsNotReadyNode(t *testing.T) {
	existing := Desired(1, metav1.Now())
	existing.Status.Conditions[3].Status = corev1.ConditionFalse
	c, client := newTestController(t, 1, existing)
	if err := c.Reconcile(context.Background(), "miniapi-node-1"); err != nil {
		t.Fatal(err)
	}
	n, _ := client.CoreV1().Nodes().Get(context.Background(), "miniapi-node-1", metav1.GetOptions{})
	if !Ready(n) {
		t.Errorf("node still not Ready")
	}
}

func TestReconcileDeletesOnlySurplusSimulatedNodes(t *testing.T) {
	surplus := Desired(3, metav1.Now())
	foreign := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "miniapi-node-4"}}
	c, client := newTestController(t, 2, surplus, foreign)
	for _, k := range []string{"miniapi-node-3", "miniapi-node-4"} {
		if err := c.Reconcile(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if len(list.Items) != 1 || list.Items[0].Name != "miniapi-node-4" {
		t.Errorf("nodes left = %v, want only the foreign miniapi-node-4", list.Items)
	}
}
