//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package endpoints

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
)

type fixture struct {
	client   *fake.Clientset
	ctrl     *Controller
	recorder *record.FakeRecorder
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	rec := record.NewFakeRecorder(100)
	ctrl, err := New(Config{Client: client, Informers: factory, Recorder: rec, Logger: slog.New(slog.DiscardHandler),
		Clock: clocktesting.NewFakeClock(time.Unix(1000, 0))})
	if err != nil {
		t.Fatal(err)
	}
	clienttest.Start(t, client, factory)
	return &fixture{client: client, ctrl: ctrl, recorder: rec}
}

func (f *fixture) reconcile(t *testing.T, key string) {
	t.Helper()
	if err := f.ctrl.Reconcile(context.Background(), key); err != nil {
		t.Fatalf("Reconcile(%s): %v", key, err)
	}
}

// waitCached waits until the controller's cache holds the Endpoints name
// with resourceVersion rv ("" for any).
func (f *fixture) waitCached(t *testing.T, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, err := f.ctrl.endpoints.Endpoints("default").Get(name)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("endpoints %s never reached the cache", name)
	}
}

// service is the reference's "web": port http 80 → 8080.
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

// pod is a Running pod on node-1 with ip; ready says its Ready condition.
func pod(name, ip string, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"), Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "nginx", Image: "nginx",
			Ports: []corev1.ContainerPort{{Name: "web", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: readyTime}},
		},
	}
}

func createdEndpoints(t *testing.T, w clienttest.Actions) *corev1.Endpoints {
	t.Helper()
	if len(w) != 1 || w[0].GetVerb() != "create" || w[0].GetResource().Resource != "endpoints" {
		t.Fatalf("writes = %v, want one create of endpoints", w)
	}
	return w[0].(k8stesting.CreateAction).GetObject().(*corev1.Endpoints)
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The reference's web Endpoints with web-1 not ready: its subsets, labels
// and annotation, byte for byte.
func TestReconcileCreatesEndpoints(t *testing.T) {
	f := newFixture(t, service("web"), pod("web-0", "10.244.0.10", true), pod("web-1", "10.244.0.11", false),
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending", Namespace: "default", Labels: map[string]string{"app": "web"}}},
		func() *corev1.Pod { p := pod("other", "10.244.0.12", true); p.Labels = nil; return p }())
	f.reconcile(t, "default/web")
	ep := createdEndpoints(t, clienttest.Writes(f.client))
	want := `[{"addresses":[{"ip":"10.244.0.10","nodeName":"node-1","targetRef":{"kind":"Pod","namespace":"default","name":"web-0","uid":"web-0-uid"}}],"notReadyAddresses":[{"ip":"10.244.0.11","nodeName":"node-1","targetRef":{"kind":"Pod","namespace":"default","name":"web-1","uid":"web-1-uid"}}],"ports":[{"name":"http","port":8080,"protocol":"TCP"}]}]`
	if got := toJSON(t, ep.Subsets); got != want {
		t.Errorf("subsets =\n%s\nwant\n%s", got, want)
	}
	if got := toJSON(t, ep.ObjectMeta); got != `{"name":"web","namespace":"default","labels":{"endpoints.kubernetes.io/managed-by":"endpoint-controller"},"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"2026-12-01T08:44:52Z"}}` {
		t.Errorf("metadata = %s", got)
	}
}

// Nothing changed: nothing written, however often it runs.
func TestReconcileUpToDateWritesNothing(t *testing.T) {
	f := newFixture(t, service("web"), pod("web-0", "10.244.0.10", true))
	f.reconcile(t, "default/web")
	f.waitCached(t, "web")
	f.client.ClearActions()
	f.reconcile(t, "default/web")
	f.reconcile(t, "default/web")
	if w := clienttest.Writes(f.client); len(w) != 0 {
		t.Errorf("writes = %v, want none", w)
	}
}

// A pod turning ready moves it to addresses and sets the trigger time to
// its Ready transition.
func TestReconcileFollowsReadiness(t *testing.T) {
	f := newFixture(t, service("web"), pod("web-0", "10.244.0.10", false))
	f.reconcile(t, "default/web")
	f.waitCached(t, "web")
	p := pod("web-0", "10.244.0.10", true)
	p.Status.Conditions[0].LastTransitionTime = metav1.Date(2026, 12, 1, 8, 46, 0, 0, time.UTC)
	p.ResourceVersion = "2"
	if _, err := f.client.CoreV1().Pods("default").UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		cached, err := f.ctrl.pods.Pods("default").Get("web-0")
		return err == nil && cached.Status.Conditions[0].Status == corev1.ConditionTrue, nil
	})
	if err != nil {
		t.Fatal("pod update never reached the cache")
	}
	f.client.ClearActions()
	f.reconcile(t, "default/web")
	w := clienttest.Writes(f.client)
	if len(w) != 1 || w[0].GetVerb() != "update" {
		t.Fatalf("writes = %v, want one update", w)
	}
	ep := w[0].(k8stesting.UpdateAction).GetObject().(*corev1.Endpoints)
	if len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 1 || len(ep.Subsets[0].NotReadyAddresses) != 0 {
		t.Errorf("subsets = %s", toJSON(t, ep.Subsets))
	}
	if got := ep.Annotations[corev1.EndpointsLastChangeTriggerTime]; got != "2026-12-01T08:46:00Z" {
		t.Errorf("trigger time = %q", got)
	}
}

// The reference's web-notarget (ports in kube's order, the same subset),
// a named targetPort resolved on the pod, a port the pod lacks, and a
// headless Service without ports.
func TestReconcilePorts(t *testing.T) {
	notarget := service("web-notarget",
		corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromInt32(80), Protocol: corev1.ProtocolTCP},
		corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9090), Protocol: corev1.ProtocolUDP})
	named := service("web-named", corev1.ServicePort{Port: 80, TargetPort: intstr.FromString("web"), Protocol: corev1.ProtocolTCP})
	missing := service("web-np", corev1.ServicePort{Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP})
	headless := service("web-headless")
	headless.Spec.ClusterIP, headless.Spec.Ports = corev1.ClusterIPNone, nil
	f := newFixture(t, notarget, named, missing, headless, pod("web-0", "10.244.0.10", true), pod("web-1", "10.244.0.11", true))
	for svc, want := range map[string]string{
		"web-notarget": `[{"addresses":[{"ip":"10.244.0.10"},{"ip":"10.244.0.11"}],"ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"metrics","port":9090,"protocol":"UDP"}]}]`,
		"web-named":    `[{"addresses":[{"ip":"10.244.0.10"},{"ip":"10.244.0.11"}],"ports":[{"port":8080,"protocol":"TCP"}]}]`,
		"web-np":       `null`,
		"web-headless": `[{"addresses":[{"ip":"10.244.0.10"},{"ip":"10.244.0.11"}]}]`,
	} {
		f.client.ClearActions()
		f.reconcile(t, "default/"+svc)
		ep := createdEndpoints(t, clienttest.Writes(f.client))
		for i := range ep.Subsets {
			for j := range ep.Subsets[i].Addresses {
				ep.Subsets[i].Addresses[j].NodeName, ep.Subsets[i].Addresses[j].TargetRef = nil, nil
			}
		}
		if got := toJSON(t, ep.Subsets); got != want {
			t.Errorf("%s: subsets = %s\nwant %s", svc, got, want)
		}
		if _, headlessLabel := ep.Labels[corev1.IsHeadlessService]; headlessLabel != (svc == "web-headless") {
			t.Errorf("%s: labels = %v", svc, ep.Labels)
		}
	}
}

// No Endpoints for an ExternalName Service or one without a selector; a
// managed Endpoints of a deleted Service goes, a user's stays.
func TestReconcileNoEndpoints(t *testing.T) {
	ext := service("ext")
	ext.Spec.Type, ext.Spec.ExternalName = corev1.ServiceTypeExternalName, "db.example.com"
	manual := service("manual")
	manual.Spec.Selector = nil
	leftover := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "gone", Namespace: "default", UID: "gone-uid", Labels: map[string]string{ManagedByLabel: Name}}}
	mine := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "default"}}
	f := newFixture(t, ext, manual, leftover, mine, pod("web-0", "10.244.0.10", true))
	for _, key := range []string{"default/ext", "default/manual", "default/mine", "default/nothing"} {
		f.reconcile(t, key)
	}
	if w := clienttest.Writes(f.client); len(w) != 0 {
		t.Errorf("writes = %v, want none", w)
	}
	f.reconcile(t, "default/gone")
	if w := clienttest.Writes(f.client); len(w) != 1 || w[0].GetVerb() != "delete" || w[0].(k8stesting.DeleteAction).GetName() != "gone" {
		t.Errorf("writes = %v, want the delete of gone", w)
	}
}

// A failed update is an error (retried) and kube's Warning event.
func TestReconcileUpdateFailureIsAnEvent(t *testing.T) {
	stale := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}
	f := newFixture(t, service("web"), pod("web-0", "10.244.0.10", true), stale)
	f.client.PrependReactor("update", "endpoints", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, context.DeadlineExceeded
	})
	if err := f.ctrl.Reconcile(context.Background(), "default/web"); err == nil {
		t.Fatal("Reconcile succeeded although the update failed")
	}
	select {
	case e := <-f.recorder.Events:
		if e != "Warning FailedToUpdateEndpoint Failed to update endpoint default/web: context deadline exceeded" {
			t.Errorf("event = %q", e)
		}
	default:
		t.Error("no event")
	}
}

// Over capacity: ready addresses are kept first.
func TestTruncate(t *testing.T) {
	big := []corev1.EndpointSubset{{Addresses: make([]corev1.EndpointAddress, 900), NotReadyAddresses: make([]corev1.EndpointAddress, 300)}}
	if !truncate(big) || len(big[0].Addresses) != 900 || len(big[0].NotReadyAddresses) != 100 {
		t.Errorf("truncate kept %d ready, %d not ready", len(big[0].Addresses), len(big[0].NotReadyAddresses))
	}
	if small := []corev1.EndpointSubset{{Addresses: make([]corev1.EndpointAddress, 3)}}; truncate(small) {
		t.Error("truncated three addresses")
	}
}
