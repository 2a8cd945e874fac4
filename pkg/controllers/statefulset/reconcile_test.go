package statefulset

import (
	"context"
	"log/slog"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/miniapi/miniapi/pkg/controllers/internal/clienttest"
)

// podUIDs numbers the UIDs the fixtures give pods, so a re-created pod
// gets a new one.
var podUIDs atomic.Int64

// fixture is a Controller over a fake clientset whose informers run, so
// Reconcile sees its own writes come back as against a server.
type fixture struct {
	client *fake.Clientset
	ctrl   *Controller
	name   string // the set Reconcile looks at, in namespace default
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	t.Helper()
	return newFixtureNamed(t, "web", objs...)
}

func newFixtureNamed(t *testing.T, name string, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	// The fake gives no UIDs; the server does, and owner references need them.
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod); p.UID == "" {
			p.UID = types.UID("uid-" + p.Name + "-" + strconv.Itoa(int(podUIDs.Add(1))))
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
	return &fixture{client: client, ctrl: ctrl, name: name}
}

func statefulSet(replicas int32, policy appsv1.PodManagementPolicyType) *appsv1.StatefulSet {
	labels := map[string]string{"app": "web"}
	zero := int32(0)
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "sts-uid", Generation: 1},
		Spec: appsv1.StatefulSetSpec{
			Replicas: &replicas, ServiceName: "nginx", PodManagementPolicy: policy,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1"}}},
			},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
				Type:          appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: &zero},
			},
		},
	}
}

// reconcile runs one Reconcile of the fixture's set, then waits until the
// cache shows the status it wrote: the next Reconcile reads status (the
// current revision, say) from the cache, as the controller does on a server.
func (f *fixture) reconcile(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if err := f.ctrl.Reconcile(ctx, "default/"+f.name); err != nil {
		t.Fatal(err)
	}
	stored, err := f.client.AppsV1().StatefulSets("default").Get(ctx, f.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		cached, err := f.ctrl.setLister.StatefulSets("default").Get(f.name)
		return err == nil && equality.Semantic.DeepEqual(cached.Status, stored.Status), nil
	})
	if err != nil {
		t.Fatal("cache never showed the status Reconcile wrote")
	}
}

// podNames lists the stored pods, sorted.
func (f *fixture) podNames(t *testing.T) []string {
	t.Helper()
	l, err := f.client.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range l.Items {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// waitCache waits until the controller's pod cache satisfies cond.
func (f *fixture) waitCache(t *testing.T, what string, cond func(pods map[string]*corev1.Pod) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, clienttest.Timeout, true, func(context.Context) (bool, error) {
		pods := map[string]*corev1.Pod{}
		for _, o := range f.ctrl.podIndexer.List() {
			p := o.(*corev1.Pod)
			pods[p.Name] = p
		}
		return cond(pods), nil
	})
	if err != nil {
		t.Fatalf("cache never showed %s", what)
	}
}

// markReady makes a stored pod Running and Ready, as the kubelet would.
func (f *fixture) markReady(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	p, err := f.client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	p.ResourceVersion = ""
	if _, err := f.client.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.waitCache(t, name+" ready", func(pods map[string]*corev1.Pod) bool { return pods[name] != nil && isHealthy(pods[name]) })
}

func (f *fixture) waitPods(t *testing.T, names ...string) {
	t.Helper()
	f.waitCache(t, "pods", func(pods map[string]*corev1.Pod) bool {
		if len(pods) != len(names) {
			return false
		}
		for _, n := range names {
			if pods[n] == nil {
				return false
			}
		}
		return true
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
