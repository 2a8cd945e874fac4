package statefulset

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

// bringUp runs Reconcile and marks each new pod ready until all n exist.
func (f *fixture) bringUp(t *testing.T, names ...string) {
	t.Helper()
	for i, name := range names {
		f.reconcile(t)
		f.waitPods(t, names[:i+1]...)
		f.markReady(t, name)
	}
	f.reconcile(t)
}

func TestOrderedReadyCreatesOneAtATime(t *testing.T) {
	f := newFixture(t, statefulSet(3, appsv1.OrderedReadyPodManagement))
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0"}) {
		t.Fatalf("pods after first reconcile %v, want [web-0]", got)
	}
	f.waitPods(t, "web-0")
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0"}) {
		t.Fatalf("web-1 created while web-0 is not ready: %v", got)
	}
	f.markReady(t, "web-0")
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0", "web-1"}) {
		t.Fatalf("pods after web-0 ready %v", got)
	}

	p, err := f.client.CoreV1().Pods("default").Get(context.Background(), "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.Hostname != "web-1" || p.Spec.Subdomain != "nginx" {
		t.Errorf("hostname %q subdomain %q", p.Spec.Hostname, p.Spec.Subdomain)
	}
	if p.Labels[podNameLabel] != "web-1" || p.Labels[podIndexLabel] != "1" || p.Labels[revisionLabel] == "" || p.Labels["app"] != "web" {
		t.Errorf("labels %v", p.Labels)
	}
	if ref := metav1.GetControllerOf(p); ref == nil || ref.Kind != "StatefulSet" || ref.UID != "sts-uid" {
		t.Errorf("controller ref %+v", ref)
	}
	revs, err := f.client.AppsV1().ControllerRevisions("default").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(revs.Items) != 1 || revs.Items[0].Name != p.Labels[revisionLabel] || revs.Items[0].Revision != 1 {
		t.Errorf("controller revisions %+v, err %v", revs, err)
	}
}

func TestParallelCreatesAllAndOrdinalsStart(t *testing.T) {
	s := statefulSet(3, appsv1.ParallelPodManagement)
	s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 5}
	f := newFixture(t, s)
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-5", "web-6", "web-7"}) {
		t.Fatalf("pods %v", got)
	}
}

func TestScaleDownFromHighestOrdinalOneAtATime(t *testing.T) {
	f := newFixture(t, statefulSet(3, appsv1.OrderedReadyPodManagement))
	f.bringUp(t, "web-0", "web-1", "web-2")
	f.setReplicas(t, 1)
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0", "web-1"}) {
		t.Fatalf("after one scale-down step %v, want web-2 deleted first", got)
	}
	f.waitPods(t, "web-0", "web-1")
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0"}) {
		t.Fatalf("after two steps %v", got)
	}
	f.waitPods(t, "web-0")
	f.reconcile(t)
	st := f.status(t)
	if st.Replicas != 1 || st.ReadyReplicas != 1 || st.CurrentReplicas != 1 || st.UpdatedReplicas != 1 || st.CurrentRevision != st.UpdateRevision {
		t.Errorf("status %+v", st)
	}
}

func TestRollingUpdateStopsAtPartition(t *testing.T) {
	f := newFixture(t, statefulSet(3, appsv1.OrderedReadyPodManagement))
	f.bringUp(t, "web-0", "web-1", "web-2")
	old := f.status(t).UpdateRevision
	f.update(t, func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		two := int32(2) // only ordinals >= 2 move
		s.Spec.UpdateStrategy.RollingUpdate.Partition = &two
	})
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0", "web-1"}) {
		t.Fatalf("rolling update did not start at the highest ordinal: %v", got)
	}
	st := f.status(t)
	if st.CurrentRevision != old || st.UpdateRevision == old {
		t.Errorf("revisions during update %q -> %q", st.CurrentRevision, st.UpdateRevision)
	}
	f.waitPods(t, "web-0", "web-1")
	f.reconcile(t) // recreates web-2 at the new revision
	f.waitPods(t, "web-0", "web-1", "web-2")
	f.markReady(t, "web-2")
	f.reconcile(t)
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0", "web-1", "web-2"}) {
		t.Fatalf("pods below the partition were touched: %v", got)
	}
	revs := map[string]string{}
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		p, _ := f.client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
		revs[name] = p.Labels[revisionLabel]
		if name == "web-2" && p.Spec.Containers[0].Image != "nginx:2" {
			t.Errorf("web-2 image %q", p.Spec.Containers[0].Image)
		}
	}
	if revs["web-0"] != old || revs["web-1"] != old || revs["web-2"] == old {
		t.Errorf("revisions %v, old %s", revs, old)
	}
	if st := f.status(t); st.UpdatedReplicas != 1 || st.CurrentReplicas != 2 || st.CurrentRevision != old {
		t.Errorf("status %+v", st)
	}
}

func TestRollingUpdateWaitsForReady(t *testing.T) {
	f := newFixture(t, statefulSet(2, appsv1.OrderedReadyPodManagement))
	f.bringUp(t, "web-0", "web-1")
	f.update(t, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	f.reconcile(t) // deletes web-1
	f.waitPods(t, "web-0")
	f.reconcile(t) // recreates web-1
	f.waitPods(t, "web-0", "web-1")
	f.reconcile(t)
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0", "web-1"}) {
		t.Fatalf("web-0 deleted while web-1 is not ready: %v", got)
	}
	f.markReady(t, "web-1")
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-1"}) {
		t.Fatalf("web-0 not updated after web-1 became ready: %v", got)
	}
}

func (f *fixture) status(t *testing.T) appsv1.StatefulSetStatus {
	t.Helper()
	return f.statusOf(t, f.name)
}

func (f *fixture) statusOf(t *testing.T, name string) appsv1.StatefulSetStatus {
	t.Helper()
	s, err := f.client.AppsV1().StatefulSets("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Status
}

func (f *fixture) setReplicas(t *testing.T, n int32) {
	f.update(t, func(s *appsv1.StatefulSet) { s.Spec.Replicas = &n })
}

// update changes the stored set and waits until the cache shows it.
func (f *fixture) update(t *testing.T, mutate func(*appsv1.StatefulSet)) {
	t.Helper()
	ctx := context.Background()
	s, err := f.client.AppsV1().StatefulSets("default").Get(ctx, f.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mutate(s)
	s.Generation++
	if _, err := f.client.AppsV1().StatefulSets("default").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		got, err := f.ctrl.setLister.StatefulSets("default").Get(f.name)
		return err == nil && got.Generation == s.Generation, nil
	})
	if err != nil {
		t.Fatal("cache never showed the update")
	}
}

// waitRevisions waits until the controller's revision cache holds n.
func (f *fixture) waitRevisions(t *testing.T, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		revs, err := f.ctrl.revLister.List(labels.Everything())
		return err == nil && len(revs) == n, nil
	})
	if err != nil {
		t.Fatalf("revision cache never held %d revisions", n)
	}
}
