package deployment

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

// A pass that creates the new ReplicaSet writes it, then the status, once.
func TestPassCreatesThenWritesStatusOnce(t *testing.T) {
	c, client, _ := newFakeController(t, webDeployment())
	if err := c.Reconcile(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	want := "[create replicasets default/web-5fc9f4bf66, update deployments/status default/web]"
	if got := clienttest.Writes(client).String(); got != want {
		t.Errorf("writes %s, want %s", got, want)
	}
}

// A rolling step may shrink one old ReplicaSet twice (its unavailable
// replicas, then available ones); the second write starts from the first's
// answer, and each records its own event.
func TestPassResizesOneReplicaSetTwice(t *testing.T) {
	d := deploy(withImage("nginx:new"), withReplicas(4, 1, 1), withRevision("2"), withStatus(5, 1, 4, availableOK, progressing))
	old := ownedRS("web-old", "nginx:old", 4, 3, 1, 100, 4, 5)
	newRS := ownedRS("web-new", "nginx:new", 1, 1, 2, 200, 4, 5)
	c, client, rec := newFakeController(t, d, old, newRS)
	if err := c.Reconcile(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	writes := clienttest.Writes(client)
	if !strings.HasPrefix(writes.String(), "[update replicasets default/web-old, update replicasets default/web-old") {
		t.Errorf("writes %s, want web-old updated twice first", writes)
	}
	for _, want := range []string{
		"Normal ScalingReplicaSet Scaled down replica set web-old from 4 to 3",
		"Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 2",
	} {
		if ev := <-rec.Events; ev != want {
			t.Errorf("event %q, want %q", ev, want)
		}
	}
	got, _ := client.AppsV1().ReplicaSets("default").Get(context.Background(), "web-old", metav1.GetOptions{})
	if *got.Spec.Replicas != 2 {
		t.Errorf("web-old at %d, want 2", *got.Spec.Replicas)
	}
}

// A name held by a ReplicaSet that is not ours bumps collisionCount, so the
// next pass tries the next name.
func TestPassNameCollision(t *testing.T) {
	stranger := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-5fc9f4bf66", Namespace: "default", Labels: map[string]string{"app": "other"}},
		Spec:       appsv1.ReplicaSetSpec{Template: nginxTemplate("busybox")},
	}
	c, client, _ := newFakeController(t, webDeployment(), stranger)
	err := c.Reconcile(context.Background(), "default/web")
	if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("err %v, want AlreadyExists", err)
	}
	got, _ := client.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	if got.Status.CollisionCount == nil || *got.Status.CollisionCount != 1 {
		t.Errorf("collisionCount %v, want 1", got.Status.CollisionCount)
	}
	if got.Annotations[revisionAnnotation] != "" {
		t.Errorf("revision %q recorded for a ReplicaSet that was not created", got.Annotations[revisionAnnotation])
	}
}

// A refused create is an event and a Progressing=False condition.
func TestPassCreateRefused(t *testing.T) {
	c, client, rec := newFakeController(t, webDeployment())
	client.PrependReactor("create", "replicasets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "web-5fc9f4bf66", nil)
	})
	if err := c.Reconcile(context.Background(), "default/web"); !apierrors.IsForbidden(err) {
		t.Fatalf("err %v, want Forbidden", err)
	}
	if ev := <-rec.Events; !strings.HasPrefix(ev, `Warning ReplicaSetCreateError Failed to create new replica set "web-5fc9f4bf66"`) {
		t.Errorf("event %q", ev)
	}
	got, _ := client.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	p := getCondition(got.Status, appsv1.DeploymentProgressing)
	if p == nil || p.Status != corev1.ConditionFalse || p.Reason != "ReplicaSetCreateError" {
		t.Errorf("Progressing %+v, want False/ReplicaSetCreateError", p)
	}
}
