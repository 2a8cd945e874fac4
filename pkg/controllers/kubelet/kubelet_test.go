package kubelet

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
	"github.com/miniapi/miniapi/pkg/controllers/node"
)

type env struct {
	k      *Kubelet
	client *fake.Clientset
	clock  *clocktesting.FakeClock
	events chan string
}

func setup(t *testing.T, delay time.Duration, objs ...runtime.Object) env {
	t.Helper()
	return setupConfig(t, Config{PodReadyDelay: delay}, objs...)
}

// setupConfig builds a Kubelet from cfg, with the fake client, informers,
// recorder and clock filled in.
func setupConfig(t *testing.T, cfg Config, objs ...runtime.Object) env {
	t.Helper()
	client := fake.NewClientset(append(objs, node.Desired(1, metav1.Now()))...)
	inf := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	cfg.Client, cfg.Informers, cfg.Clock = client, inf, clk
	cfg.NewRecorder = func(corev1.EventSource) record.EventRecorder { return rec }
	k, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, inf)
	return env{k, client, clk, rec.Events}
}

func boundPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{NodeName: "miniapi-node-1", Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func (e env) get(t *testing.T, name string) (*corev1.Pod, bool) {
	t.Helper()
	p, err := e.client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	return p, err == nil
}

func TestReconcileStartsPodAfterDelay(t *testing.T) {
	e := setup(t, 2*time.Second, boundPod("web"))
	ctx := context.Background()
	if err := e.k.Reconcile(ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.get(t, "web"); p.Status.Phase != corev1.PodPending {
		t.Fatalf("pod is %s before the delay passed", p.Status.Phase)
	}
	e.clock.Step(2 * time.Second)
	if err := e.k.Reconcile(ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	p, _ := e.get(t, "web")
	if p.Status.Phase != corev1.PodRunning || p.Status.HostIP != "10.0.0.1" || !strings.HasPrefix(p.Status.PodIP, "10.244.") {
		t.Errorf("after the delay: phase %s hostIP %s podIP %s", p.Status.Phase, p.Status.HostIP, p.Status.PodIP)
	}
	var got []string
	for len(e.events) > 0 {
		got = append(got, <-e.events)
	}
	want := []string{
		`Normal Pulled Container image "nginx" already present on machine`,
		"Normal Created Created container: nginx",
		"Normal Started Started container nginx",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReconcileIgnoresPodsOffSimulatedNodes(t *testing.T) {
	elsewhere := boundPod("x")
	elsewhere.Spec.NodeName = "real-node"
	unbound := boundPod("y")
	unbound.Spec.NodeName = ""
	realNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "real-node"}}
	e := setup(t, 0, elsewhere, unbound, realNode)
	e.client.ClearActions()
	for _, k := range []string{"default/x", "default/y", "default/nope"} {
		if err := e.k.Reconcile(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	if w := clienttest.Writes(e.client); len(w) != 0 {
		t.Errorf("kubelet wrote %v, want nothing", w)
	}
}

func terminating(name string, grace int64, at time.Time) *corev1.Pod {
	p := boundPod(name)
	p.Status.Phase = corev1.PodRunning
	ts := metav1.NewTime(at.Add(time.Duration(grace) * time.Second))
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
	return p
}

func TestReconcileDeletesTerminatingPodAfterDelayCappedByGrace(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	e := setup(t, 5*time.Second, terminating("slow", 30, start), terminating("quick", 1, start))
	ctx := context.Background()
	for _, k := range []string{"default/slow", "default/quick"} {
		if err := e.k.Reconcile(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := e.get(t, "slow"); !ok {
		t.Fatal("pod deleted before the delay")
	}
	if ev := <-e.events; ev != "Normal Killing Stopping container nginx" {
		t.Errorf("event = %q, want Killing", ev)
	}
	e.clock.Step(time.Second)
	for _, k := range []string{"default/slow", "default/quick"} {
		if err := e.k.Reconcile(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := e.get(t, "quick"); ok {
		t.Error("pod with 1s grace still there after 1s")
	}
	if _, ok := e.get(t, "slow"); !ok {
		t.Error("pod deleted before the 5s delay")
	}
	e.clock.Step(4 * time.Second)
	if err := e.k.Reconcile(ctx, "default/slow"); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.get(t, "slow"); ok {
		t.Error("pod still there after the delay")
	}
}

func TestReconcileForceDeletesPodsOfMissingNodes(t *testing.T) {
	orphan := boundPod("orphan")
	orphan.Spec.NodeName = "miniapi-node-9"
	orphan.Status.Phase = corev1.PodRunning
	e := setup(t, time.Hour, orphan)
	if err := e.k.Reconcile(context.Background(), "default/orphan"); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.get(t, "orphan"); ok {
		t.Error("pod bound to a node that does not exist is still there")
	}
}
