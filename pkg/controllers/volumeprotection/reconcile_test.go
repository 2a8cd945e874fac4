package volumeprotection

import (
	"context"
	"log/slog"
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

var deleted = metav1.NewTime(time.Unix(1000, 0))

func newController(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Config{Client: client, Informers: factory, Logger: slog.New(slog.DiscardHandler), Clock: clocktesting.NewFakeClock(time.Unix(2000, 0))})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return c, client
}

func claim(name string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		DeletionTimestamp: &deleted, Finalizers: []string{"example.com/keep", PVCFinalizer}}}
}

func podUsing(name, claimName, node string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: node, Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName}}}}},
		Status: corev1.PodStatus{Phase: phase}}
}

func finalizersOf(t *testing.T, c *fake.Clientset, name string) []string {
	t.Helper()
	pvc, err := c.CoreV1().PersistentVolumeClaims("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pvc.Finalizers
}

// A deleted claim keeps its finalizer while a running pod on a node
// mounts it; unscheduled and finished pods do not hold it.
func TestClaimFinalizer(t *testing.T) {
	c, client := newController(t, claim("used"), claim("free"),
		podUsing("runner", "used", "node-1", corev1.PodRunning),
		podUsing("pending", "free", "", corev1.PodPending),
		podUsing("done", "free", "node-1", corev1.PodSucceeded))
	ctx := context.Background()
	for _, k := range []string{"pvc/default/used", "pvc/default/free"} {
		if err := c.Reconcile(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if got := finalizersOf(t, client, "used"); len(got) != 2 {
		t.Errorf("claim in use lost its finalizer: %v", got)
	}
	if got := finalizersOf(t, client, "free"); len(got) != 1 || got[0] != "example.com/keep" {
		t.Errorf("free claim finalizers = %v, want only the other one", got)
	}
}

// A deleted volume keeps its finalizer while Bound.
func TestVolumeFinalizer(t *testing.T) {
	pv := func(name string, phase corev1.PersistentVolumePhase) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name, DeletionTimestamp: &deleted, Finalizers: []string{PVFinalizer}},
			Status: corev1.PersistentVolumeStatus{Phase: phase}}
	}
	c, client := newController(t, pv("bound", corev1.VolumeBound), pv("released", corev1.VolumeReleased))
	ctx := context.Background()
	for _, k := range []string{"pv/bound", "pv/released"} {
		if err := c.Reconcile(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]int{"bound": 1, "released": 0} {
		got, err := client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Finalizers) != want {
			t.Errorf("%s finalizers = %v", name, got.Finalizers)
		}
	}
}
