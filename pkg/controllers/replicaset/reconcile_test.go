package replicaset

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

// fixture is a Controller over a fake clientset whose informers run, so
// Reconcile sees its own writes come back as it would against a server.
type fixture struct {
	client   *fake.Clientset
	ctrl     *Controller
	recorder *record.FakeRecorder
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	var n atomic.Int64
	// The fake tracker does not implement generateName; the server does.
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, n.Add(1))
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	ctrl, err := New(Config{Client: client, Informers: factory, Recorder: rec, Logger: slog.New(slog.DiscardHandler), Clock: clocktesting.NewFakeClock(time.Unix(1000, 0))})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return &fixture{client: client, ctrl: ctrl, recorder: rec}
}

func replicaSet(name string, n int32) *appsv1.ReplicaSet {
	labels := map[string]string{"app": name}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: "rs-uid", Generation: 1},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"note": "x"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

func (f *fixture) pods(t *testing.T) []corev1.Pod {
	t.Helper()
	l, err := f.client.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

func (f *fixture) count(verb, resource string) int {
	n := 0
	for _, a := range f.client.Actions() {
		if a.GetVerb() == verb && a.GetResource().Resource == resource && a.GetSubresource() == "" {
			n++
		}
	}
	return n
}

func TestReconcileCreatesMissingPodsOnce(t *testing.T) {
	f := newFixture(t, replicaSet("web", 3))
	ctx := context.Background()
	if err := f.ctrl.Reconcile(ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	// Reconcile again at once, before the informer may have seen the pods:
	// expectations must stop a second round of creations.
	if err := f.ctrl.Reconcile(ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.count("create", "pods"); got != 3 {
		t.Fatalf("%d pod creations, want exactly 3", got)
	}
	for _, p := range f.pods(t) {
		ref := metav1.GetControllerOf(&p)
		if !strings.HasPrefix(p.Name, "web-") || p.GenerateName != "web-" || ref == nil || ref.UID != "rs-uid" ||
			p.Labels["app"] != "web" || p.Annotations["note"] != "x" {
			t.Errorf("pod %s: generateName %q, owner %+v, labels %v, annotations %v", p.Name, p.GenerateName, ref, p.Labels, p.Annotations)
		}
	}
	ev := <-f.recorder.Events
	if !strings.HasPrefix(ev, "Normal SuccessfulCreate Created pod: web-") {
		t.Errorf("event %q, want Normal SuccessfulCreate Created pod: web-…", ev)
	}
}

func TestReconcileScalesDownAndReportsStatus(t *testing.T) {
	rs := replicaSet("web", 1)
	owned := func(name string, opts ...podOpt) *corev1.Pod {
		p := pod(name, opts...)
		p.Labels = map[string]string{"app": "web"}
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid", Controller: &yes}}
		return p
	}
	keep := owned("web-ready", onNode("n1"), phase(corev1.PodRunning), readyAt(10))
	pending := owned("web-pending", onNode("n2"), phase(corev1.PodPending))
	orphan := pod("stray", onNode("n3"), phase(corev1.PodRunning), readyAt(10))
	orphan.Labels = map[string]string{"app": "web"}
	f := newFixture(t, rs, keep, pending, orphan)

	if err := f.ctrl.Reconcile(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	// The stray pod is adopted (3 owned), then the two least valuable go:
	// the pending one first, then the younger of the two ready ones.
	var deleted []string
	for _, a := range f.client.Actions() {
		if d, ok := a.(k8stesting.DeleteAction); ok && a.GetResource().Resource == "pods" {
			deleted = append(deleted, d.GetName())
		}
	}
	if len(deleted) != 2 || !contains(deleted, "web-pending") || contains(deleted, "web-ready") && contains(deleted, "stray") {
		t.Errorf("deleted %v, want web-pending and one of the ready pods", deleted)
	}
	if f.count("patch", "pods") != 1 {
		t.Errorf("%d pod patches, want 1 (adopting stray)", f.count("patch", "pods"))
	}
	got, _ := f.client.AppsV1().ReplicaSets("default").Get(context.Background(), "web", metav1.GetOptions{})
	if got.Status.ObservedGeneration != 1 || got.Status.Replicas != 3 || got.Status.ReadyReplicas != 2 ||
		got.Status.AvailableReplicas != 2 || got.Status.FullyLabeledReplicas != 3 || got.Status.TerminatingReplicas == nil {
		t.Errorf("status %+v, want observed 1, replicas 3 (pods seen before deleting), ready 2, available 2, fullyLabeled 3", got.Status)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestReconcileGoneReplicaSetIsNoop(t *testing.T) {
	f := newFixture(t)
	if err := f.ctrl.Reconcile(context.Background(), "default/nope"); err != nil {
		t.Fatalf("Reconcile of a missing ReplicaSet: %v, want nil", err)
	}
	if w := clienttest.Writes(f.client); len(w) != 0 {
		t.Errorf("controller wrote %v, want nothing", w)
	}
}
