package disruption

import (
	"context"
	"log/slog"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

var now = time.Unix(10000, 0)

func newController(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Config{Client: client, Informers: factory, Recorder: record.NewFakeRecorder(100),
		Logger: slog.New(slog.DiscardHandler), Clock: clocktesting.NewFakeClock(now)})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return c, client
}

func pdb(minAvailable, maxUnavailable *intstr.IntOrString) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 1},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
}

func pod(name string, ready bool, owner *metav1.OwnerReference) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	return p
}

func controllerRef(kind, name string, uid types.UID) *metav1.OwnerReference {
	yes := true
	return &metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: &yes}
}

func reconciled(t *testing.T, c *Controller, client *fake.Clientset) policyv1.PodDisruptionBudgetStatus {
	t.Helper()
	if err := c.Reconcile(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	got, err := client.PolicyV1().PodDisruptionBudgets("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Status
}

func wantCounts(t *testing.T, st policyv1.PodDisruptionBudgetStatus, healthy, desired, expected, allowed int32, reason string) {
	t.Helper()
	if st.CurrentHealthy != healthy || st.DesiredHealthy != desired || st.ExpectedPods != expected || st.DisruptionsAllowed != allowed {
		t.Errorf("status: healthy %d desired %d expected %d allowed %d; want %d %d %d %d",
			st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods, st.DisruptionsAllowed, healthy, desired, expected, allowed)
	}
	if st.ObservedGeneration != 1 {
		t.Errorf("observedGeneration %d, want 1", st.ObservedGeneration)
	}
	if len(st.Conditions) != 1 || st.Conditions[0].Type != "DisruptionAllowed" || st.Conditions[0].Reason != reason {
		t.Errorf("conditions %+v, want DisruptionAllowed with reason %s", st.Conditions, reason)
	}
}

// An integer minAvailable counts the selected pods; unready ones are not
// healthy.
func TestIntegerMinAvailable(t *testing.T) {
	one := intstr.FromInt32(1)
	c, client := newController(t, pdb(&one, nil), pod("a", true, nil), pod("b", true, nil), pod("c", false, nil))
	st := reconciled(t, c, client)
	wantCounts(t, st, 2, 1, 3, 1, policyv1.SufficientPodsReason)
	if st.Conditions[0].Status != metav1.ConditionTrue {
		t.Errorf("condition status %s", st.Conditions[0].Status)
	}
}

// maxUnavailable is taken of the replicas the Deployment above the pods'
// ReplicaSet wants, counted once.
func TestMaxUnavailableUsesTheDeploymentScale(t *testing.T) {
	one, three := intstr.FromInt32(1), int32(3)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "dep"}, Spec: appsv1.DeploymentSpec{Replicas: &three}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "rs",
		OwnerReferences: []metav1.OwnerReference{*controllerRef("Deployment", "web", "dep")}}, Spec: appsv1.ReplicaSetSpec{Replicas: &three}}
	ref := controllerRef("ReplicaSet", "web-1", "rs")
	c, client := newController(t, pdb(nil, &one), dep, rs, pod("a", true, ref), pod("b", true, ref))
	wantCounts(t, reconciled(t, c, client), 2, 2, 3, 0, policyv1.InsufficientPodsReason)
}

// A percentage of a bare ReplicaSet's replicas; a pod with no controller
// is not counted.
func TestPercentOfAReplicaSet(t *testing.T) {
	half, four := intstr.FromString("50%"), int32(4)
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "rs"}, Spec: appsv1.ReplicaSetSpec{Replicas: &four}}
	ref := controllerRef("ReplicaSet", "web-1", "rs")
	c, client := newController(t, pdb(&half, nil), rs, pod("a", true, ref), pod("b", true, ref), pod("c", true, ref), pod("loose", true, nil))
	wantCounts(t, reconciled(t, c, client), 4, 2, 4, 2, policyv1.SufficientPodsReason)
}

// A pod an eviction was just allowed to remove is not healthy until its
// entry expires; an expired entry is dropped.
func TestDisruptedPodsAreNotHealthy(t *testing.T) {
	one := intstr.FromInt32(1)
	b := pdb(&one, nil)
	b.Status.DisruptedPods = map[string]metav1.Time{
		"a": metav1.NewTime(now.Add(-time.Minute)),
		"b": metav1.NewTime(now.Add(-3 * time.Minute)),
	}
	c, client := newController(t, b, pod("a", true, nil), pod("b", true, nil), pod("c", true, nil))
	st := reconciled(t, c, client)
	wantCounts(t, st, 2, 1, 3, 1, policyv1.SufficientPodsReason)
	if _, kept := st.DisruptedPods["a"]; !kept || len(st.DisruptedPods) != 1 {
		t.Errorf("disruptedPods %v, want only a", st.DisruptedPods)
	}
}

// A percentage needs the pods' controllers: a pod whose controller has no
// scale fails the sync safe (nothing allowed, condition SyncFailed).
func TestUnknownControllerFailsSafe(t *testing.T) {
	half := intstr.FromString("50%")
	ref := controllerRef("DaemonSet", "agent", "ds")
	c, client := newController(t, pdb(&half, nil), pod("a", true, ref))
	if err := c.Reconcile(context.Background(), "default/web"); err == nil {
		t.Fatal("want an error for a controller without a scale")
	}
	got, err := client.PolicyV1().PodDisruptionBudgets("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cond := got.Status.Conditions
	if got.Status.DisruptionsAllowed != 0 || len(cond) != 1 || cond[0].Reason != policyv1.SyncFailedReason ||
		cond[0].Message != `found no controllers for pod "a"` {
		t.Fatalf("status %+v", got.Status)
	}
}

// A budget that selects nothing expects nothing and allows nothing; a
// second reconcile writes nothing.
func TestNoPodsAndNoRewrite(t *testing.T) {
	one := intstr.FromInt32(1)
	c, client := newController(t, pdb(&one, nil))
	wantCounts(t, reconciled(t, c, client), 0, 1, 0, 0, policyv1.InsufficientPodsReason)
	deadline := time.Now().Add(10 * time.Second)
	for {
		cached, err := c.pdbLister.PodDisruptionBudgets("default").Get("web")
		if err == nil && cached.Status.ObservedGeneration == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cache never saw the status write")
		}
		time.Sleep(5 * time.Millisecond)
	}
	client.ClearActions()
	reconciled(t, c, client)
	for _, a := range clienttest.Writes(client) {
		t.Errorf("second reconcile wrote: %v", a)
	}
}
