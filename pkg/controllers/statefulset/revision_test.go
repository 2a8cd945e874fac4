package statefulset

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// referenceDB is the StatefulSet "db" of ../shared/reference/kinds-crd-ssa-1.37.md
// as kube-apiserver 1.37 stored it (template defaults applied); kube named
// its revision db-748ff75645.
func referenceDB() *appsv1.StatefulSet {
	grace := int64(30)
	s := statefulSet(2, appsv1.OrderedReadyPodManagement)
	s.Name = "db"
	s.Spec.Template = corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "pg", Image: "postgres", ImagePullPolicy: corev1.PullAlways,
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile}},
			DNSPolicy: corev1.DNSClusterFirst, RestartPolicy: corev1.RestartPolicyAlways, SchedulerName: "default-scheduler",
			SecurityContext: &corev1.PodSecurityContext{}, TerminationGracePeriodSeconds: &grace,
		},
	}
	s.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	return s
}

func TestRevisionNameIsKubes(t *testing.T) {
	data, err := revisionData(referenceDB())
	if err != nil {
		t.Fatal(err)
	}
	if got := revisionName(referenceDB(), revisionHash(data, 0)); got != "db-748ff75645" {
		t.Errorf("revision name %s, kube 1.37 named it db-748ff75645", got)
	}
	if revisionHash(data, 1) == revisionHash(data, 0) {
		t.Error("the collision count does not change the hash")
	}
}

func TestControllerRevisionAsKubeWritesIt(t *testing.T) {
	s := referenceDB()
	s.Annotations = map[string]string{"note": "x"}
	f := newFixtureNamed(t, "db", s)
	f.reconcile(t)
	rev, err := f.client.AppsV1().ControllerRevisions("default").Get(context.Background(), "db-748ff75645", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rev.Revision != 1 || rev.Labels["app"] != "db" || rev.Labels[hashLabel] != "748ff75645" || rev.Annotations["note"] != "x" {
		t.Errorf("revision %+v", rev.ObjectMeta)
	}
	if ref := metav1.GetControllerOf(rev); ref == nil || ref.Kind != "StatefulSet" || ref.UID != s.UID {
		t.Errorf("controller %+v", ref)
	}
	pod, err := f.client.CoreV1().Pods("default").Get(context.Background(), "db-0", metav1.GetOptions{})
	if err != nil || pod.Labels[revisionLabel] != "db-748ff75645" {
		t.Fatalf("pod db-0 %v, err %v", pod.GetLabels(), err)
	}
	if st := f.statusOf(t, "db"); st.CurrentRevision != "db-748ff75645" || st.UpdateRevision != "db-748ff75645" || *st.CollisionCount != 0 {
		t.Errorf("status %+v", st)
	}
}

func TestNameCollisionCountsAndRenames(t *testing.T) {
	s := referenceDB()
	taken := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "db-748ff75645", Namespace: "default"},
		Data:       runtime.RawExtension{Raw: []byte(`{"other":true}`)},
		Revision:   1,
	}
	f := newFixtureNamed(t, "db", s, taken)
	f.reconcile(t)
	data, _ := revisionData(s)
	want := "db-" + revisionHash(data, 1)
	st := f.statusOf(t, "db")
	if st.CollisionCount == nil || *st.CollisionCount != 1 || st.UpdateRevision != want {
		t.Fatalf("status %+v, want collisionCount 1 and revision %s", st, want)
	}
	rev, err := f.client.AppsV1().ControllerRevisions("default").Get(context.Background(), want, metav1.GetOptions{})
	if err != nil || rev.Labels[hashLabel] != "748ff75645" {
		t.Errorf("renamed revision %v (kube keeps the first hash as label), err %v", rev.GetLabels(), err)
	}
}

func TestRollbackRenumbersTheOldRevision(t *testing.T) {
	f := newFixture(t, statefulSet(1, appsv1.OrderedReadyPodManagement))
	f.bringUp(t, "web-0")
	first := f.status(t).UpdateRevision
	f.update(t, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	f.reconcile(t)
	f.waitRevisions(t, 2)
	f.update(t, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:1" })
	f.reconcile(t)
	revs, err := f.client.AppsV1().ControllerRevisions("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	numbers := map[string]int64{}
	for _, r := range revs.Items {
		numbers[r.Name] = r.Revision
	}
	if len(numbers) != 2 || numbers[first] != 3 {
		t.Errorf("revisions %v, want 2 with %s renumbered 3", numbers, first)
	}
	if st := f.status(t); st.UpdateRevision != first {
		t.Errorf("update revision %s, want %s back", st.UpdateRevision, first)
	}
}

func TestHistoryKeepsRevisionHistoryLimit(t *testing.T) {
	s := statefulSet(0, appsv1.OrderedReadyPodManagement)
	one := int32(1)
	s.Spec.RevisionHistoryLimit = &one
	f := newFixture(t, s)
	var names []string
	for i, image := range []string{"nginx:1", "nginx:2", "nginx:3", "nginx:4"} {
		if i > 0 {
			f.update(t, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image })
		}
		f.reconcile(t)
		names = append(names, f.status(t).UpdateRevision)
		// The revision current when a reconcile starts is live too, so
		// history trails by one reconcile, as in kube.
		f.waitRevisions(t, []int{1, 2, 3, 3}[i])
	}
	f.reconcile(t)
	f.waitRevisions(t, 2)
	revs, _ := f.client.AppsV1().ControllerRevisions("default").List(context.Background(), metav1.ListOptions{})
	var got []string
	for _, r := range revs.Items {
		got = append(got, r.Name)
	}
	if len(got) != 2 || !contains(got, names[2]) || !contains(got, names[3]) {
		t.Errorf("revisions %v, want the last two of %v (the update one and one of history)", got, names)
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
