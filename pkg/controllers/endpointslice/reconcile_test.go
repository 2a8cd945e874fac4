package endpointslice

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
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

var (
	created   = metav1.Date(2026, 12, 1, 8, 44, 52, 0, time.UTC)
	readyTime = metav1.Date(2026, 12, 1, 8, 45, 0, 0, time.UTC)
	node1     = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
)

type fixture struct {
	client   *fake.Clientset
	ctrl     *Controller
	recorder *record.FakeRecorder
}

func newFixture(t *testing.T, max int, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	var n atomic.Int64
	// The fake tracker does not implement generateName; the server does.
	client.PrependReactor("create", "endpointslices", func(a k8stesting.Action) (bool, runtime.Object, error) {
		s := a.(k8stesting.CreateAction).GetObject().(*discoveryv1.EndpointSlice)
		if s.Name == "" {
			s.Name = fmt.Sprintf("%s%05d", s.GenerateName, n.Add(1))
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	ctrl, err := New(Config{Client: client, Informers: factory, Recorder: rec, Logger: slog.New(slog.DiscardHandler),
		Clock: clocktesting.NewFakeClock(time.Unix(1000, 0)), MaxEndpointsPerSlice: max})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return &fixture{client: client, ctrl: ctrl, recorder: rec}
}

func (f *fixture) reconcile(t *testing.T, key string) error {
	t.Helper()
	return f.ctrl.Reconcile(context.Background(), key)
}

// settle waits until the slice cache shows every slice the fake holds.
func (f *fixture) settle(t *testing.T) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		stored, err := f.client.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, s := range stored.Items {
			cached, err := f.ctrl.slices.EndpointSlices("default").Get(s.Name)
			if err != nil || cached.ResourceVersion != s.ResourceVersion {
				return false, nil
			}
		}
		cached, _ := f.ctrl.slices.List(labels.Everything())
		return len(cached) == len(stored.Items), nil
	})
	if err != nil {
		t.Fatal("slice cache never caught up")
	}
}

func (f *fixture) slices(t *testing.T) []discoveryv1.EndpointSlice {
	t.Helper()
	l, err := f.client.DiscoveryV1().EndpointSlices("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

func service(name string, ports ...corev1.ServicePort) *corev1.Service {
	if ports == nil {
		ports = []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"), CreationTimestamp: created},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"}, Ports: ports, ClusterIP: "10.96.0.139",
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, Type: corev1.ServiceTypeClusterIP,
		},
	}
}

func pod(name, ip string, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"), Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: readyTime}},
		},
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Service without ready pods gets the reference's empty slice.
func TestReconcileCreatesPlaceholder(t *testing.T) {
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default", Labels: map[string]string{"app": "web"}}}
	f := newFixture(t, 0, service("web"), node1, pending)
	if err := f.reconcile(t, "default/web"); err != nil {
		t.Fatal(err)
	}
	w := clienttest.Writes(f.client)
	if len(w) != 1 || w[0].GetVerb() != "create" {
		t.Fatalf("writes = %v, want one create", w)
	}
	s := w[0].(k8stesting.CreateAction).GetObject().(*discoveryv1.EndpointSlice)
	want := `{"metadata":{"generateName":"web-","namespace":"default","labels":{"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io","kubernetes.io/service-name":"web"},"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"2026-12-01T08:44:52Z"},"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"web","uid":"web-uid","controller":true,"blockOwnerDeletion":true}]},"addressType":"IPv4","endpoints":null,"ports":null}`
	if got := toJSON(t, s); got != want {
		t.Errorf("slice =\n%s\nwant\n%s", got, want)
	}
	// Again, with the cache caught up: nothing to do.
	f.settle(t)
	f.client.ClearActions()
	if err := f.reconcile(t, "default/web"); err != nil {
		t.Fatal(err)
	}
	if w := clienttest.Writes(f.client); len(w) != 0 {
		t.Errorf("writes = %v, want none", w)
	}
}

// Pods turning ready fill the existing slice (the same name), with the
// reference's endpoints, conditions and ports.
func TestReconcileFillsPlaceholder(t *testing.T) {
	f := newFixture(t, 0, service("web"), node1)
	if err := f.reconcile(t, "default/web"); err != nil {
		t.Fatal(err)
	}
	f.settle(t)
	for _, p := range []*corev1.Pod{pod("web-1", "10.244.0.11", false), pod("web-0", "10.244.0.10", true)} {
		if _, err := f.client.CoreV1().Pods("default").Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		pods, err := f.ctrl.pods.List(labels.Everything())
		return err == nil && len(pods) == 2, nil
	})
	if err != nil {
		t.Fatal("pods never reached the cache")
	}
	f.client.ClearActions()
	if err := f.reconcile(t, "default/web"); err != nil {
		t.Fatal(err)
	}
	w := clienttest.Writes(f.client)
	if len(w) != 1 || w[0].GetVerb() != "update" {
		t.Fatalf("writes = %v, want one update", w)
	}
	s := w[0].(k8stesting.UpdateAction).GetObject().(*discoveryv1.EndpointSlice)
	wantEndpoints := `[{"addresses":["10.244.0.10"],"conditions":{"ready":true,"serving":true,"terminating":false},"targetRef":{"kind":"Pod","namespace":"default","name":"web-0","uid":"web-0-uid"},"nodeName":"node-1"},{"addresses":["10.244.0.11"],"conditions":{"ready":false,"serving":false,"terminating":false},"targetRef":{"kind":"Pod","namespace":"default","name":"web-1","uid":"web-1-uid"},"nodeName":"node-1"}]`
	if s.Name != "web-00001" || toJSON(t, s.Endpoints) != wantEndpoints || toJSON(t, s.Ports) != `[{"name":"http","protocol":"TCP","port":8080}]` {
		t.Errorf("slice %s: endpoints %s ports %s", s.Name, toJSON(t, s.Endpoints), toJSON(t, s.Ports))
	}
	if got := s.Annotations[corev1.EndpointsLastChangeTriggerTime]; got != "2026-12-01T08:45:00Z" {
		t.Errorf("trigger time = %q", got)
	}
}

// A pod on no node or an unknown node is left out and reported, as in
// the reference; the others are still published.
func TestReconcileSkipsPodsWithoutNode(t *testing.T) {
	lost := pod("web-0", "10.244.0.10", true)
	lost.Spec.NodeName = ""
	f := newFixture(t, 0, service("web"), node1, lost, pod("web-1", "10.244.0.11", true))
	err := f.reconcile(t, "default/web")
	if err == nil || err.Error() != "skipping Pod web-0 for Service default/web: Node  Not Found" {
		t.Errorf("Reconcile = %v", err)
	}
	select {
	case e := <-f.recorder.Events:
		if !strings.HasPrefix(e, "Warning FailedToUpdateEndpointSlices Error updating Endpoint Slices for Service default/web: skipping Pod web-0") {
			t.Errorf("event = %q", e)
		}
	default:
		t.Error("no event")
	}
	s := f.slices(t)
	if len(s) != 1 || len(s[0].Endpoints) != 1 || s[0].Endpoints[0].TargetRef.Name != "web-1" {
		t.Errorf("slices = %s", toJSON(t, s))
	}
}

// The reference's web-notarget (ports in kube's order: 9090 before 80)
// and web-headless (its label); none for ExternalName or no selector.
func TestReconcilePortsAndKinds(t *testing.T) {
	notarget := service("web-notarget",
		corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromInt32(80), Protocol: corev1.ProtocolTCP},
		corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9090), Protocol: corev1.ProtocolUDP})
	headless := service("web-headless", corev1.ServicePort{Port: 80, TargetPort: intstr.FromInt32(80), Protocol: corev1.ProtocolTCP})
	headless.Spec.ClusterIP = corev1.ClusterIPNone
	ext := service("ext")
	ext.Spec.Type, ext.Spec.Selector = corev1.ServiceTypeExternalName, nil
	manual := service("manual")
	manual.Spec.Selector = nil
	f := newFixture(t, 0, notarget, headless, ext, manual, node1, pod("web-0", "10.244.0.10", true))
	for _, svc := range []string{"web-notarget", "web-headless", "ext", "manual"} {
		if err := f.reconcile(t, "default/"+svc); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]discoveryv1.EndpointSlice{}
	for _, s := range f.slices(t) {
		got[s.Labels[discoveryv1.LabelServiceName]] = s
	}
	if len(got) != 2 {
		t.Fatalf("slices for %v, want web-notarget and web-headless", got)
	}
	if p := toJSON(t, got["web-notarget"].Ports); p != `[{"name":"metrics","protocol":"UDP","port":9090},{"name":"http","protocol":"TCP","port":80}]` {
		t.Errorf("web-notarget ports = %s", p)
	}
	if v, ok := got["web-headless"].Labels[corev1.IsHeadlessService]; !ok || v != "" {
		t.Errorf("web-headless labels = %v", got["web-headless"].Labels)
	}
	if _, ok := got["web-notarget"].Labels[corev1.IsHeadlessService]; ok {
		t.Errorf("web-notarget labels = %v", got["web-notarget"].Labels)
	}
}

// More endpoints than fit in one slice make more slices; when the pods go,
// one slice is emptied (kept, same name) and the others deleted.
func TestReconcileSplitsAndShrinks(t *testing.T) {
	f := newFixture(t, 2, service("web"), node1,
		pod("web-0", "10.244.0.10", true), pod("web-1", "10.244.0.11", true), pod("web-2", "10.244.0.12", true))
	if err := f.reconcile(t, "default/web"); err != nil {
		t.Fatal(err)
	}
	if s := f.slices(t); len(s) != 2 || len(s[0].Endpoints)+len(s[1].Endpoints) != 3 {
		t.Fatalf("slices = %s", toJSON(t, s))
	}
	f.settle(t)
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		if err := f.client.CoreV1().Pods("default").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		pods, err := f.ctrl.pods.List(labels.Everything())
		return err == nil && len(pods) == 0, nil
	})
	if err != nil {
		t.Fatal("pod deletes never reached the cache")
	}
	f.client.ClearActions()
	if err := f.reconcile(t, "default/web"); err != nil {
		t.Fatal(err)
	}
	s := f.slices(t)
	if len(s) != 1 || s[0].Endpoints != nil || s[0].Ports != nil {
		t.Fatalf("slices = %s, want one empty", toJSON(t, s))
	}
	if w := clienttest.Writes(f.client); w.String() != "[update endpointslices default/"+s[0].Name+", delete endpointslices default/"+otherName(s[0].Name)+"]" {
		t.Errorf("writes = %v", w)
	}
}

func otherName(name string) string {
	if name == "web-00001" {
		return "web-00002"
	}
	return "web-00001"
}

// While the cache lacks the controller's own create, a reconcile writes
// nothing (no second slice).
func TestReconcileWaitsForItsWrites(t *testing.T) {
	f := newFixture(t, 0, service("web"), node1)
	f.ctrl.written.wrote("default/web", &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "web-xxxxx"}}, false)
	if err := f.reconcile(t, "default/web"); err != nil {
		t.Fatal(err)
	}
	if w := clienttest.Writes(f.client); len(w) != 0 {
		t.Errorf("writes = %v, want none while the cache is behind", w)
	}
}
