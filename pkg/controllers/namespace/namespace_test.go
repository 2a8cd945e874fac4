package namespace

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

func setup(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Config{Client: client, Informers: inf})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, inf)
	client.ClearActions()
	return c, client
}

func ns(name string, terminating bool) *corev1.Namespace {
	n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}}}
	if terminating {
		now := metav1.Now()
		n.DeletionTimestamp = &now
		n.Status.Phase = corev1.NamespaceTerminating
	}
	return n
}

func objsIn(namespace string) []runtime.Object {
	return []runtime.Object{
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "p"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "d"}},
		&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "rs"}},
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "e"}},
	}
}

// finalized returns the namespace sent to namespaces/finalize, if any.
func finalized(client *fake.Clientset) *corev1.Namespace {
	for _, a := range client.Actions() {
		if a.GetSubresource() == "finalize" {
			if c, ok := a.(k8stesting.CreateAction); ok {
				return c.GetObject().(*corev1.Namespace)
			}
		}
	}
	return nil
}

func TestTerminatingNamespaceIsEmptiedThenFinalized(t *testing.T) {
	objs := append([]runtime.Object{ns("doomed", true), ns("other", false)}, objsIn("doomed")...)
	objs = append(objs, objsIn("other")...)
	c, client := setup(t, objs...)
	ctx := context.Background()
	if err := c.Reconcile(ctx, "doomed"); err != nil {
		t.Fatal(err)
	}
	if f := finalized(client); f != nil {
		t.Fatal("finalized while content remained")
	}
	got, _ := client.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
	for _, cond := range got.Status.Conditions {
		if cond.Type == corev1.NamespaceContentRemaining && (cond.Status != corev1.ConditionTrue ||
			cond.Message != "Some resources are remaining: deployments.apps has 1 resource instances, events. has 1 resource instances, pods. has 1 resource instances, replicasets.apps has 1 resource instances") {
			t.Errorf("NamespaceContentRemaining = %+v", cond)
		}
	}
	if len(got.Status.Conditions) != 5 {
		t.Errorf("namespace conditions = %+v, want the 5 deletion conditions", got.Status.Conditions)
	}
	deleted := map[string]bool{}
	for _, a := range client.Actions() {
		if a.GetVerb() == "delete-collection" {
			if a.GetNamespace() != "doomed" {
				t.Errorf("deletecollection in namespace %q", a.GetNamespace())
			}
			deleted[a.GetResource().Resource] = true
		}
	}
	for _, r := range []string{"pods", "replicasets", "deployments", "events"} {
		if !deleted[r] {
			t.Errorf("no deletecollection of %s (got %v)", r, deleted)
		}
	}
	// The fake clientset records deletecollection without deleting; do
	// what the server would.
	_ = client.CoreV1().Pods("doomed").Delete(ctx, "p", metav1.DeleteOptions{})
	_ = client.AppsV1().Deployments("doomed").Delete(ctx, "d", metav1.DeleteOptions{})
	_ = client.AppsV1().ReplicaSets("doomed").Delete(ctx, "rs", metav1.DeleteOptions{})
	_ = client.CoreV1().Events("doomed").Delete(ctx, "e", metav1.DeleteOptions{})
	client.ClearActions()
	if err := c.Reconcile(ctx, "doomed"); err != nil {
		t.Fatal(err)
	}
	f := finalized(client)
	if f == nil {
		t.Fatal("empty terminating namespace was not finalized")
	}
	if len(f.Spec.Finalizers) != 0 {
		t.Errorf("finalize sent spec.finalizers %v, want none", f.Spec.Finalizers)
	}
	if l, _ := client.CoreV1().Pods("other").List(ctx, metav1.ListOptions{}); len(l.Items) != 1 {
		t.Errorf("pods in another namespace were touched")
	}
}

func TestActiveOrAlreadyFinalizedNamespaceIsLeftAlone(t *testing.T) {
	done := ns("done", true)
	done.Spec.Finalizers = nil
	objs := append([]runtime.Object{ns("live", false), done}, objsIn("live")...)
	c, client := setup(t, objs...)
	for _, k := range []string{"live", "done", "missing"} {
		if err := c.Reconcile(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	if w := clienttest.Writes(client); len(w) != 0 {
		t.Errorf("controller wrote %v, want nothing", w)
	}
}
