package scheduler

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
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
	client.PrependReactor("create", "pods", bindLikeTheServer(client))
	inf := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	s, err := New(Config{Client: client, Informers: inf, Recorder: rec, Clock: clocktesting.NewFakeClock(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, inf)
	if !cache.WaitForCacheSync(t.Context().Done(), s.podsSeen) {
		t.Fatal("the pod handler did not see the pods")
	}
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

// bindLikeTheServer answers a pods/binding create as the server does
// (TestPodBinding in pkg/apiserver proves it there): the fake clientset
// would only store the pod unchanged.
func bindLikeTheServer(client *fake.Clientset) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		create := action.(k8stesting.CreateAction)
		b, ok := create.GetObject().(*corev1.Binding)
		if !ok || action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		obj, err := client.Tracker().Get(action.GetResource(), action.GetNamespace(), b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*corev1.Pod).DeepCopy()
		pod.Spec.NodeName = b.Target.Name
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
		return true, &metav1.Status{Status: metav1.StatusSuccess}, client.Tracker().Update(action.GetResource(), pod, action.GetNamespace())
	}
}

func scheduledCondition(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
