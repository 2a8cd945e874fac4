package daemonset

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

type fixture struct {
	client *fake.Clientset
	ctrl   *Controller
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	var n atomic.Int64
	// The fake tracker does not implement generateName; the server does.
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, n.Add(1))
			pod.UID = types.UID("uid-" + pod.Name)
			pod.CreationTimestamp = metav1.NewTime(time.Unix(2000+n.Load(), 0))
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	ctrl, err := New(Config{Client: client, Informers: factory, Recorder: record.NewFakeRecorder(100),
		Logger: slog.New(slog.DiscardHandler), Clock: clocktesting.NewFakeClock(time.Unix(1000, 0))})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return &fixture{client: client, ctrl: ctrl}
}

func daemonSet(strategy appsv1.DaemonSetUpdateStrategyType) *appsv1.DaemonSet {
	l := map[string]string{"app": "agent"}
	one := intstr.FromInt32(1)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default", UID: "ds-uid", Generation: 1,
			Annotations: map[string]string{generationAnnotation: "1"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: l},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "busybox"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: strategy},
		},
	}
	if strategy == appsv1.RollingUpdateDaemonSetStrategyType {
		ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}
	}
	return ds
}

func node(name string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Taints: taints}}
}

// waitPods waits until the controller's pod cache holds n pods of ds.
func (f *fixture) waitPods(t *testing.T, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		objs, _ := f.ctrl.podIndexer.ByIndex("miniapi-controller-uid", "ds-uid")
		return len(objs) == n, nil
	})
	if err != nil {
		t.Fatalf("pod cache never held %d pods", n)
	}
}

// One pod per node it should run on: a not-ready:NoSchedule node is
// skipped, an unreachable:NoExecute one is tolerated (kube's defaults).
func TestReconcileCreatesOnePodPerNode(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, daemonSet(appsv1.RollingUpdateDaemonSetStrategyType), node("a"), node("b"),
		node("c", corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}),
		node("d", corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}))
	if err := f.ctrl.Reconcile(ctx, "default/agent"); err != nil {
		t.Fatal(err)
	}
	pods, _ := f.client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	revs, _ := f.client.AppsV1().ControllerRevisions("default").List(ctx, metav1.ListOptions{})
	if len(revs.Items) != 1 || revs.Items[0].Revision != 1 {
		t.Fatalf("revisions = %+v", revs.Items)
	}
	hash := revs.Items[0].Labels[hashLabel]
	onNodes := map[string]bool{}
	for _, p := range pods.Items {
		onNodes[podNode(&p)] = true
		if p.Labels[hashLabel] != hash || p.Labels[generationLabel] != "1" || p.Spec.NodeName != "" || len(p.Spec.Tolerations) != 6 {
			t.Errorf("pod %s: labels %v nodeName %q tolerations %d", p.Name, p.Labels, p.Spec.NodeName, len(p.Spec.Tolerations))
		}
	}
	if len(pods.Items) != 3 || !onNodes["a"] || !onNodes["b"] || !onNodes["d"] {
		t.Fatalf("pods on %v, want a, b, d", onNodes)
	}
	if revs.Items[0].Name != "agent-"+hash {
		t.Errorf("revision name %s", revs.Items[0].Name)
	}

	f.waitPods(t, 3)
	f.client.ClearActions()
	if err := f.ctrl.Reconcile(ctx, "default/agent"); err != nil {
		t.Fatal(err)
	}
	if w := clienttest.Writes(f.client); len(w) != 1 || w[0].GetSubresource() != "status" {
		t.Errorf("second reconcile wrote %v, want only the status", w)
	}
	ds, _ := f.client.AppsV1().DaemonSets("default").Get(ctx, "agent", metav1.GetOptions{})
	if s := ds.Status; s.DesiredNumberScheduled != 3 || s.CurrentNumberScheduled != 3 || s.UpdatedNumberScheduled != 3 || s.NumberReady != 0 || s.ObservedGeneration != 1 {
		t.Errorf("status = %+v", s)
	}
}

// readyPod is an old-template pod of ds on node, Ready.
func readyPod(ds *appsv1.DaemonSet, name, nodeName string) *corev1.Pod {
	p := newPod(ds, nodeName, "oldhash")
	p.Name = name
	p.Labels[generationLabel] = "0"
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	return p
}

// RollingUpdate deletes old pods up to maxUnavailable (1); OnDelete none.
func TestReconcileRollingUpdateAndOnDelete(t *testing.T) {
	for _, tc := range []struct {
		strategy appsv1.DaemonSetUpdateStrategyType
		deletes  int
	}{{appsv1.RollingUpdateDaemonSetStrategyType, 1}, {appsv1.OnDeleteDaemonSetStrategyType, 0}} {
		t.Run(string(tc.strategy), func(t *testing.T) {
			ds := daemonSet(tc.strategy)
			f := newFixture(t, ds, node("a"), node("b"), node("c"),
				readyPod(ds, "agent-1", "a"), readyPod(ds, "agent-2", "b"), readyPod(ds, "agent-3", "c"))
			if err := f.ctrl.Reconcile(context.Background(), "default/agent"); err != nil {
				t.Fatal(err)
			}
			deletes := 0
			for _, a := range clienttest.Writes(f.client) {
				if a.GetVerb() == "delete" && a.GetResource().Resource == "pods" {
					deletes++
				}
			}
			if deletes != tc.deletes {
				t.Errorf("deleted %d pods, want %d: %v", deletes, tc.deletes, clienttest.Writes(f.client))
			}
			ds, _ = f.client.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
			if s := ds.Status; s.NumberReady != 3 || s.UpdatedNumberScheduled != 0 || s.NumberAvailable != 3 {
				t.Errorf("status = %+v", s)
			}
		})
	}
}

// nodeSelector decides, and a pod on a node it should not be on is deleted.
func TestShouldRunAndMisscheduled(t *testing.T) {
	ds := daemonSet(appsv1.RollingUpdateDaemonSetStrategyType)
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	ssd := node("a")
	ssd.Labels = map[string]string{"disk": "ssd"}
	if !shouldRun(ds, ssd) || shouldRun(ds, node("b")) {
		t.Fatal("nodeSelector not honoured")
	}
	if shouldRun(ds, node("c", corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule})) {
		t.Error("an untolerated taint was ignored")
	}
	stray := newPod(ds, "b", "h")
	stray.Name = "agent-stray"
	f := newFixture(t, ds, ssd, node("b"), stray)
	if err := f.ctrl.Reconcile(context.Background(), "default/agent"); err != nil {
		t.Fatal(err)
	}
	ds, _ = f.client.AppsV1().DaemonSets("default").Get(context.Background(), "agent", metav1.GetOptions{})
	if ds.Status.NumberMisscheduled != 1 || ds.Status.DesiredNumberScheduled != 1 {
		t.Errorf("status = %+v", ds.Status)
	}
	pods, _ := f.client.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: labels.Everything().String()})
	for _, p := range pods.Items {
		if podNode(&p) != "a" {
			t.Errorf("pod %s left on node %s", p.Name, podNode(&p))
		}
	}
}
