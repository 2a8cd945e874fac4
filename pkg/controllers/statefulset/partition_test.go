package statefulset

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// podAt returns a stored pod's image and revision label.
func (f *fixture) podAt(t *testing.T, name string) (image, revision string) {
	t.Helper()
	p, err := f.client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Spec.Containers[0].Image, p.Labels[revisionLabel]
}

func (f *fixture) deletePod(t *testing.T, name string) {
	t.Helper()
	if err := f.client.CoreV1().Pods("default").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// partitioned brings up web-0..2 at nginx:1, then moves the template to
// nginx:2 with partition 2 and lets web-2 roll. It returns the old and
// new revisions.
func partitioned(t *testing.T, f *fixture) (old, updated string) {
	t.Helper()
	f.bringUp(t, "web-0", "web-1", "web-2")
	old = f.status(t).CurrentRevision
	f.update(t, func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		two := int32(2)
		s.Spec.UpdateStrategy.RollingUpdate.Partition = &two
	})
	f.reconcile(t) // deletes web-2
	f.waitPods(t, "web-0", "web-1")
	f.reconcile(t) // re-creates it at the update revision
	f.waitPods(t, "web-0", "web-1", "web-2")
	f.markReady(t, "web-2")
	f.reconcile(t)
	return old, f.status(t).UpdateRevision
}

func TestPodBelowPartitionIsRecreatedAtTheCurrentRevision(t *testing.T) {
	f := newFixture(t, statefulSet(3, appsv1.OrderedReadyPodManagement))
	old, updated := partitioned(t, f)
	if old == updated {
		t.Fatal("the template change made no new revision")
	}
	f.deletePod(t, "web-0")
	f.waitPods(t, "web-1", "web-2")
	f.reconcile(t)
	f.waitPods(t, "web-0", "web-1", "web-2")
	if image, rev := f.podAt(t, "web-0"); image != "nginx:1" || rev != old {
		t.Errorf("web-0 came back at %s %s, want the current revision nginx:1 %s", image, rev, old)
	}
	if image, rev := f.podAt(t, "web-2"); image != "nginx:2" || rev != updated {
		t.Errorf("web-2 at %s %s, want nginx:2 %s", image, rev, updated)
	}
	f.markReady(t, "web-0")
	f.reconcile(t)
	st := f.status(t)
	if st.CurrentRevision != old || st.UpdateRevision != updated || st.CurrentReplicas != 2 || st.UpdatedReplicas != 1 || st.Replicas != 3 {
		t.Errorf("status %+v", st)
	}
}

func TestLoweringThePartitionRollsTheRest(t *testing.T) {
	f := newFixture(t, statefulSet(3, appsv1.OrderedReadyPodManagement))
	_, updated := partitioned(t, f)
	f.update(t, func(s *appsv1.StatefulSet) {
		zero := int32(0)
		s.Spec.UpdateStrategy.RollingUpdate.Partition = &zero
	})
	for _, name := range []string{"web-1", "web-0"} {
		f.reconcile(t) // deletes name
		f.waitCache(t, name+" gone", func(pods map[string]*corev1.Pod) bool { return pods[name] == nil })
		f.reconcile(t) // re-creates it
		f.waitCache(t, name+" back", func(pods map[string]*corev1.Pod) bool { return pods[name] != nil })
		f.markReady(t, name)
	}
	f.reconcile(t)
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		if _, rev := f.podAt(t, name); rev != updated {
			t.Errorf("%s at %s, want %s", name, rev, updated)
		}
	}
	if st := f.status(t); st.CurrentRevision != updated || st.CurrentReplicas != 3 || st.UpdatedReplicas != 3 {
		t.Errorf("status %+v: the update is complete, so the update revision is current", st)
	}
}

func TestMaxUnavailableDeletesSeveralAtOnce(t *testing.T) {
	s := statefulSet(3, appsv1.OrderedReadyPodManagement)
	two := intstr.FromInt32(2)
	s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &two
	f := newFixture(t, s)
	f.bringUp(t, "web-0", "web-1", "web-2")
	f.update(t, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0"}) {
		t.Errorf("pods %v, want web-2 and web-1 deleted together", got)
	}
	if st := f.status(t); st.CurrentReplicas != 1 {
		t.Errorf("currentReplicas %d, want 3 less the 2 deleted", st.CurrentReplicas)
	}
}

func TestOnDeleteUpdatesOnlyDeletedPods(t *testing.T) {
	s := statefulSet(2, appsv1.OrderedReadyPodManagement)
	s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	f := newFixture(t, s)
	f.bringUp(t, "web-0", "web-1")
	old := f.status(t).CurrentRevision
	f.update(t, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	f.reconcile(t)
	if got := f.podNames(t); !equal(got, []string{"web-0", "web-1"}) {
		t.Fatalf("OnDelete deleted pods: %v", got)
	}
	f.deletePod(t, "web-0")
	f.waitPods(t, "web-1")
	f.reconcile(t)
	f.waitPods(t, "web-0", "web-1")
	f.markReady(t, "web-0")
	f.reconcile(t)
	if image, _ := f.podAt(t, "web-0"); image != "nginx:2" {
		t.Errorf("web-0 came back at %s, want the update revision", image)
	}
	st := f.status(t)
	if st.CurrentRevision != old || st.UpdatedReplicas != 1 || st.CurrentReplicas != 1 {
		t.Errorf("status %+v: kube leaves currentRevision alone under OnDelete", st)
	}
}
