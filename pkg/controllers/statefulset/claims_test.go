package statefulset

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

// withClaims gives s the claim template "data" (labelled tier=db) and the
// retention policy whenDeleted/whenScaled.
func withClaims(s *appsv1.StatefulSet, whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType) *appsv1.StatefulSet {
	s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: map[string]string{"tier": "db"}, Annotations: map[string]string{"a": "b"}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}}
	s.Spec.Template.Spec.Volumes = []corev1.Volume{
		{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}, // replaced by the claim
		{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: whenDeleted, WhenScaled: whenScaled}
	return s
}

func (f *fixture) claim(t *testing.T, name string) *corev1.PersistentVolumeClaim {
	t.Helper()
	c, err := f.client.CoreV1().PersistentVolumeClaims("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitClaims waits until the controller's claim cache holds n claims.
func (f *fixture) waitClaims(t *testing.T, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		l, err := f.ctrl.claimLister.List(labels.Everything())
		return err == nil && len(l) == n, nil
	})
	if err != nil {
		t.Fatalf("claim cache never held %d claims", n)
	}
}

// refsOf lists a claim's owner references as "Kind/name", all of which
// must be controller references.
func refsOf(t *testing.T, c *corev1.PersistentVolumeClaim) []string {
	t.Helper()
	var out []string
	for _, r := range c.OwnerReferences {
		if r.Controller == nil || !*r.Controller || r.BlockOwnerDeletion == nil || !*r.BlockOwnerDeletion {
			t.Errorf("%s: reference %+v is not a controller reference", c.Name, r)
		}
		out = append(out, r.Kind+"/"+r.Name)
	}
	return out
}

func TestClaimsAreCreatedBeforeTheirPod(t *testing.T) {
	f := newFixture(t, withClaims(statefulSet(2, appsv1.ParallelPodManagement), "", ""))
	f.reconcile(t)
	var order []string
	for _, a := range f.client.Actions() {
		create, ok := a.(k8stesting.CreateAction)
		if ok && (a.GetResource().Resource == "pods" || a.GetResource().Resource == "persistentvolumeclaims") {
			order = append(order, a.GetResource().Resource+"/"+create.GetObject().(metav1.Object).GetName())
		}
	}
	want := []string{"persistentvolumeclaims/data-web-0", "pods/web-0", "persistentvolumeclaims/data-web-1", "pods/web-1"}
	if !equal(order, want) {
		t.Errorf("creations %v, want %v", order, want)
	}
	c := f.claim(t, "data-web-1")
	if c.Namespace != "default" || c.Labels["tier"] != "db" || c.Labels["app"] != "web" || len(c.Labels) != 2 || c.Annotations["a"] != "b" ||
		c.Spec.Resources.Requests.Storage().String() != "1Gi" || len(c.OwnerReferences) != 0 {
		t.Errorf("claim %+v", c.ObjectMeta)
	}
	pod, err := f.client.CoreV1().Pods("default").Get(context.Background(), "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vols := pod.Spec.Volumes
	if len(vols) != 2 || vols[0].Name != "data" || vols[0].PersistentVolumeClaim == nil || vols[0].PersistentVolumeClaim.ClaimName != "data-web-1" ||
		vols[1].Name != "cache" || vols[1].EmptyDir == nil {
		t.Errorf("pod volumes %+v", vols)
	}
}

func TestClaimLabelsAreTheSelectorsWithoutTemplateLabels(t *testing.T) {
	s := withClaims(statefulSet(1, appsv1.OrderedReadyPodManagement), "", "")
	s.Spec.VolumeClaimTemplates[0].Labels = nil
	f := newFixture(t, s)
	f.reconcile(t)
	if c := f.claim(t, "data-web-0"); len(c.Labels) != 1 || c.Labels["app"] != "web" {
		t.Errorf("labels %v", c.Labels)
	}
}

func TestClaimBeingDeletedHoldsThePodBack(t *testing.T) {
	now := metav1.Now()
	dying := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: "data-web-0", Namespace: "default", DeletionTimestamp: &now, Finalizers: []string{"kubernetes.io/pvc-protection"}}}
	f := newFixture(t, withClaims(statefulSet(1, appsv1.OrderedReadyPodManagement), "", ""), dying)
	err := f.ctrl.Reconcile(context.Background(), "default/web")
	if err == nil || err.Error() != "pvc data-web-0 is being deleted" {
		t.Errorf("reconcile error %v", err)
	}
	if got := f.podNames(t); len(got) != 0 {
		t.Errorf("pods %v created on a claim being deleted", got)
	}
}

func TestWhenDeletedDeleteMakesTheSetControlClaims(t *testing.T) {
	f := newFixture(t, withClaims(statefulSet(1, appsv1.OrderedReadyPodManagement), appsv1.DeletePersistentVolumeClaimRetentionPolicyType, ""))
	f.reconcile(t)
	if got := refsOf(t, f.claim(t, "data-web-0")); !equal(got, []string{"StatefulSet/web"}) {
		t.Errorf("owners %v", got)
	}
}

func TestWhenScaledDeleteHandsScaledDownClaimsToTheirPod(t *testing.T) {
	f := newFixture(t, withClaims(statefulSet(2, appsv1.OrderedReadyPodManagement),
		appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType))
	f.bringUp(t, "web-0", "web-1")
	f.waitClaims(t, 2)
	f.setReplicas(t, 1)
	f.reconcile(t) // re-owns data-web-1, then deletes web-1
	if got := f.podNames(t); !equal(got, []string{"web-0"}) {
		t.Fatalf("pods %v", got)
	}
	if got := refsOf(t, f.claim(t, "data-web-1")); !equal(got, []string{"Pod/web-1"}) {
		t.Errorf("scaled-down claim owners %v, want the pod only", got)
	}
	if got := refsOf(t, f.claim(t, "data-web-0")); !equal(got, []string{"StatefulSet/web"}) {
		t.Errorf("kept claim owners %v, want the set only", got)
	}
}

func TestPolicyChangeUpdatesExistingClaims(t *testing.T) {
	f := newFixture(t, withClaims(statefulSet(1, appsv1.OrderedReadyPodManagement), appsv1.DeletePersistentVolumeClaimRetentionPolicyType, ""))
	f.bringUp(t, "web-0")
	f.update(t, func(s *appsv1.StatefulSet) {
		s.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	})
	f.waitClaims(t, 1)
	f.reconcile(t)
	if got := f.claim(t, "data-web-0").OwnerReferences; len(got) != 0 {
		t.Errorf("owners %v after whenDeleted=Retain", got)
	}
}

func TestStaleClaimHoldsThePodBackUnderWhenScaledDelete(t *testing.T) {
	yes := true
	stale := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: "data-web-0", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web-0", UID: "old-pod", Controller: &yes}}}}
	f := newFixture(t, withClaims(statefulSet(1, appsv1.OrderedReadyPodManagement), "", appsv1.DeletePersistentVolumeClaimRetentionPolicyType), stale)
	f.reconcile(t)
	if got := f.podNames(t); len(got) != 0 {
		t.Errorf("pods %v created on a claim its earlier pod still owns", got)
	}
}
