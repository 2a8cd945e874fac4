package scheduler

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
	"github.com/miniapi/miniapi/pkg/controllers/node"
)

func pod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{SchedulerName: Name, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func setup(t *testing.T, objs ...runtime.Object) (*Scheduler, *fake.Clientset, *record.FakeRecorder) {
	t.Helper()
	client := fake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	s, err := New(Config{Client: client, Informers: inf, Recorder: rec, Clock: clocktesting.NewFakeClock(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, inf)
	return s, client, rec
}

func TestReconcileSpreadsPodsAndRecordsScheduled(t *testing.T) {
	objs := []runtime.Object{node.Desired(1, metav1.Now()), node.Desired(2, metav1.Now()), node.Desired(3, metav1.Now())}
	busy := pod("already-there")
	busy.Spec.NodeName = "miniapi-node-1"
	objs = append(objs, busy)
	names := []string{"a", "b", "c", "d", "e"}
	for _, n := range names {
		objs = append(objs, pod(n))
	}
	s, client, rec := setup(t, objs...)
	ctx := context.Background()
	for _, n := range names {
		if err := s.Reconcile(ctx, "default/"+n); err != nil {
			t.Fatal(err)
		}
	}
	perNode := map[string]int{}
	for _, n := range append(names, "already-there") {
		p, err := client.CoreV1().Pods("default").Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		perNode[p.Spec.NodeName]++
		if n != "already-there" && !scheduledCondition(p) {
			t.Errorf("pod %s has no PodScheduled=True condition", n)
		}
	}
	want := map[string]int{"miniapi-node-1": 2, "miniapi-node-2": 2, "miniapi-node-3": 2}
	for k, v := range want {
		if perNode[k] != v {
			t.Errorf("pods per node = %v, want %v", perNode, want)
			break
		}
	}
	select {
	case e := <-rec.Events:
		if !strings.HasPrefix(e, "Normal Scheduled Successfully assigned default/a to miniapi-node-2") {
			t.Errorf("first event = %q", e)
		}
	default:
		t.Error("no Scheduled event recorded")
	}
}

func TestReconcileLeavesOthersAlone(t *testing.T) {
	other := pod("other")
	other.Spec.SchedulerName = "my-scheduler"
	dying := pod("dying")
	now := metav1.Now()
	dying.DeletionTimestamp = &now
	s, client, _ := setup(t, node.Desired(1, metav1.Now()), other, dying)
	client.ClearActions()
	for _, k := range []string{"default/other", "default/dying", "default/missing"} {
		if err := s.Reconcile(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	if w := clienttest.Writes(client); len(w) != 0 {
		t.Errorf("scheduler wrote %v, want nothing", w)
	}
}

func TestReconcileWithoutReadyNodeWaits(t *testing.T) {
	notReady := node.Desired(1, metav1.Now())
	notReady.Status.Conditions[3].Status = corev1.ConditionFalse
	s, client, rec := setup(t, notReady, pod("a"))
	if err := s.Reconcile(context.Background(), "default/a"); err != nil {
		t.Fatal(err)
	}
	p, _ := client.CoreV1().Pods("default").Get(context.Background(), "a", metav1.GetOptions{})
	if p.Spec.NodeName != "" {
		t.Errorf("pod bound to not-Ready node %s", p.Spec.NodeName)
	}
	if e := <-rec.Events; !strings.HasPrefix(e, "Warning FailedScheduling 0/1 nodes are available") {
		t.Errorf("event = %q, want FailedScheduling", e)
	}
}

// The scheduler's condition patch adds PodScheduled to a status the kubelet
// already posted without dropping the kubelet's conditions.
func TestConditionPatchKeepsTheOtherConditions(t *testing.T) {
	at := metav1.Now()
	patch, err := conditionPatch("u1", corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at})
	if err != nil {
		t.Fatal(err)
	}
	running := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u1"}, Status: corev1.PodStatus{
		Phase:      corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
	}}
	cur, _ := json.Marshal(running)
	merged, err := strategicpatch.StrategicMergePatch(cur, patch, corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	var got corev1.Pod
	if err := json.Unmarshal(merged, &got); err != nil {
		t.Fatal(err)
	}
	seen := map[corev1.PodConditionType]corev1.ConditionStatus{}
	for _, c := range got.Status.Conditions {
		seen[c.Type] = c.Status
	}
	if got.Status.Phase != corev1.PodRunning || len(got.Status.Conditions) != 2 ||
		seen[corev1.PodReady] != corev1.ConditionTrue || seen[corev1.PodScheduled] != corev1.ConditionTrue || got.UID != "u1" {
		t.Errorf("after the patch: phase %s, conditions %+v; want Running with Ready and PodScheduled True", got.Status.Phase, got.Status.Conditions)
	}
}
