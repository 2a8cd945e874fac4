package deployment

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

func newFakeController(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset, *record.FakeRecorder) {
	t.Helper()
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	c, err := New(Config{Client: client, Informers: factory, Recorder: rec, Logger: slog.New(slog.DiscardHandler), Clock: clocktesting.NewFakeClock(time.Unix(1000, 0))})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return c, client, rec
}

func webDeployment() *appsv1.Deployment {
	d := rollingDeployment(3, "25%", "25%")
	d.UID, d.Generation = "d-uid", 1
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template = nginxTemplate("nginx")
	limit, deadline := int32(10), int32(600)
	d.Spec.RevisionHistoryLimit, d.Spec.ProgressDeadlineSeconds = &limit, &deadline
	return d
}

func TestReconcileCreatesTheNewReplicaSet(t *testing.T) {
	c, client, rec := newFakeController(t, webDeployment())
	if err := c.Reconcile(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	rs, err := client.AppsV1().ReplicaSets("default").Get(context.Background(), "web-5fc9f4bf66", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("replicaset web-5fc9f4bf66 (kube's name for this template): %v", err)
	}
	ref := metav1.GetControllerOf(rs)
	if *rs.Spec.Replicas != 3 || ref == nil || ref.UID != "d-uid" || !*ref.BlockOwnerDeletion ||
		rs.Spec.Selector.MatchLabels["pod-template-hash"] != "5fc9f4bf66" || rs.Spec.Template.Labels["pod-template-hash"] != "5fc9f4bf66" {
		t.Errorf("replicaset %+v", rs)
	}
	want := map[string]string{revisionAnnotation: "1", desiredReplicasAnno: "3", maxReplicasAnno: "4"}
	for k, v := range want {
		if rs.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, rs.Annotations[k], v)
		}
	}
	if ev := <-rec.Events; ev != "Normal ScalingReplicaSet Scaled up replica set web-5fc9f4bf66 from 0 to 3" {
		t.Errorf("event %q", ev)
	}
	d, _ := client.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	p := getCondition(d.Status, appsv1.DeploymentProgressing)
	if d.Annotations[revisionAnnotation] != "1" || p == nil || p.Reason != "NewReplicaSetCreated" || p.Message != `Created new replica set "web-5fc9f4bf66"` {
		t.Errorf("deployment annotations %v, Progressing %+v", d.Annotations, p)
	}
}

func TestReconcileRollingStepRespectsSurge(t *testing.T) {
	d := webDeployment()
	d.Spec.Replicas = ptr32(4)
	one := intstr.FromInt32(1)
	d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable = &one, &one
	old := rs("web-old", 4, 4)
	old.Namespace, old.Labels = "default", map[string]string{"app": "web"}
	old.Spec.Template = nginxTemplate("nginx:old")
	yes := true
	old.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: &yes}}
	old.Annotations = map[string]string{revisionAnnotation: "1", desiredReplicasAnno: "4", maxReplicasAnno: "5"}
	c, client, _ := newFakeController(t, d, old)
	if err := c.Reconcile(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	list, _ := client.AppsV1().ReplicaSets("default").List(context.Background(), metav1.ListOptions{})
	sizes := map[string]int32{}
	for _, r := range list.Items {
		sizes[r.Name] = *r.Spec.Replicas
		if r.Name != "web-old" && r.Annotations[revisionAnnotation] != "2" {
			t.Errorf("new replicaset %s revision %q, want 2", r.Name, r.Annotations[revisionAnnotation])
		}
	}
	// First step: the new ReplicaSet gets the one surge pod; the old one
	// keeps 4 until new pods are available.
	if len(sizes) != 2 || sizes["web-old"] != 4 {
		t.Fatalf("sizes %v, want web-old 4 and a new one at 1", sizes)
	}
	for name, n := range sizes {
		if strings.HasPrefix(name, "web-") && name != "web-old" && n != 1 {
			t.Errorf("new replicaset %s at %d, want 1 (maxSurge)", name, n)
		}
	}
}

func ptr32(v int32) *int32 { return &v }
