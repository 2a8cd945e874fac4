package daemonset

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

// writes sums up a reconcile's pod writes: the nodes new pods were made
// for, and the pods deleted or patched, by name.
func (f *fixture) podWrites() (created, deleted, patched []string) {
	for _, a := range clienttest.Writes(f.client) {
		if a.GetResource().Resource != "pods" {
			continue
		}
		switch a := a.(type) {
		case k8stesting.CreateAction:
			created = append(created, podNode(a.GetObject().(*corev1.Pod)))
		case k8stesting.DeleteAction:
			deleted = append(deleted, a.GetName())
		case k8stesting.PatchAction:
			patched = append(patched, a.GetName())
		}
	}
	slices.Sort(created)
	slices.Sort(deleted)
	slices.Sort(patched)
	return created, deleted, patched
}

func (f *fixture) reconcile(t *testing.T) {
	t.Helper()
	f.client.ClearActions()
	if err := f.ctrl.Reconcile(context.Background(), "default/agent"); err != nil {
		t.Fatal(err)
	}
}

func surgeDaemonSet() *appsv1.DaemonSet {
	ds := daemonSet(appsv1.RollingUpdateDaemonSetStrategyType)
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: &one, MaxUnavailable: &zero}
	return ds
}

// With maxSurge 1 the new pod is made beside the old one, the old one goes
// only once the new one is Ready, and then the next node surges.
func TestRollingUpdateSurgesBeforeDeleting(t *testing.T) {
	ds := surgeDaemonSet()
	f := newFixture(t, ds, node("a"), node("b"), readyPod(ds, "agent-old-a", "a"), readyPod(ds, "agent-old-b", "b"))
	f.reconcile(t)
	if c, d, _ := f.podWrites(); !slices.Equal(c, []string{"a"}) || len(d) != 0 {
		t.Fatalf("first step created on %v, deleted %v; want a new pod on a, no deletion", c, d)
	}
	f.waitPods(t, 3)
	f.reconcile(t)
	if c, d, _ := f.podWrites(); len(c)+len(d) != 0 {
		t.Fatalf("while the new pod is not ready: created on %v, deleted %v", c, d)
	}
	st, _ := f.client.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
	if s := st.Status; s.NumberAvailable != 2 || s.UpdatedNumberScheduled != 0 || s.CurrentNumberScheduled != 2 {
		t.Errorf("status while surging = %+v (the old pods still count)", s)
	}

	surged, err := f.client.CoreV1().Pods("default").Get(context.Background(), "agent-00001", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	surged.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := f.client.CoreV1().Pods("default").UpdateStatus(context.Background(), surged, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.eventually(t, func() bool {
		p, err := f.ctrl.podIndexer.ByIndex("miniapi-controller-uid", "ds-uid")
		for _, o := range p {
			if pod := o.(*corev1.Pod); pod.Name == "agent-00001" {
				ready, _ := readySince(pod)
				return err == nil && ready
			}
		}
		return false
	})
	f.reconcile(t)
	if c, d, _ := f.podWrites(); !slices.Equal(c, []string{"b"}) || !slices.Equal(d, []string{"agent-old-a"}) {
		t.Fatalf("after the new pod on a is ready: created on %v, deleted %v; want b and agent-old-a", c, d)
	}
}

func TestSurplusPodsKeepsOneOldAndOneNewWhenSurging(t *testing.T) {
	ds := surgeDaemonSet()
	old1, old2 := readyPod(ds, "o1", "a"), readyPod(ds, "o2", "a")
	new1, new2 := newPod(ds, "a", "h"), newPod(ds, "a", "h")
	new1.Name, new2.Name = "n1", "n2"
	names := func(ps []*corev1.Pod) (out []string) {
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	pods := []*corev1.Pod{old1, new1, old2, new2}
	if got := names(surplusPods(ds, pods, "h", true)); !slices.Equal(got, []string{"o2", "n2"}) {
		t.Errorf("surging: surplus %v, want [o2 n2]", got)
	}
	if got := names(surplusPods(ds, pods, "h", false)); !slices.Equal(got, []string{"n1", "o2", "n2"}) {
		t.Errorf("not surging: surplus %v, want all but the oldest", got)
	}
	if n := maxSurge(ds, 3); n != 1 {
		t.Errorf("maxSurge = %d", n)
	}
	pct := intstr.FromString("50%")
	ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = &pct
	if n := maxSurge(ds, 3); n != 2 {
		t.Errorf("maxSurge 50%% of 3 = %d, want 2 (rounded up)", n)
	}
}

// An orphan pod matching the selector is adopted (no new pod on its
// node); an owned pod whose labels no longer match is released and
// replaced.
func TestAdoptsOrphansAndReleasesStrays(t *testing.T) {
	ds := daemonSet(appsv1.OnDeleteDaemonSetStrategyType)
	orphan := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "loose", Namespace: "default", UID: "uid-loose", Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{NodeName: "a", Containers: []corev1.Container{{Name: "agent", Image: "busybox"}}},
	}
	stray := readyPod(ds, "strayed", "b")
	stray.UID = "uid-strayed"
	stray.Labels["app"] = "other"
	f := newFixture(t, ds, node("a"), node("b"), orphan, stray)
	f.reconcile(t)
	c, d, p := f.podWrites()
	if !slices.Equal(p, []string{"loose", "strayed"}) || !slices.Equal(c, []string{"b"}) || len(d) != 0 {
		t.Fatalf("patched %v, created on %v, deleted %v; want both patched, one pod on b", p, c, d)
	}
	got, _ := f.client.CoreV1().Pods("default").Get(context.Background(), "loose", metav1.GetOptions{})
	if ref := metav1.GetControllerOf(got); ref == nil || ref.UID != "ds-uid" || ref.Kind != "DaemonSet" {
		t.Errorf("orphan's controller %+v", ref)
	}
	got, _ = f.client.CoreV1().Pods("default").Get(context.Background(), "strayed", metav1.GetOptions{})
	if ref := metav1.GetControllerOf(got); ref != nil {
		t.Errorf("stray still controlled by %+v", ref)
	}
}

// eventually waits until cond holds for the controller's caches.
func (f *fixture) eventually(t *testing.T, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatal("the cache never caught up")
	}
}
