package apiserver

// Services over HTTP: ClusterIPs and NodePorts allocated from the
// server's ranges, given back on delete and on type changes, never twice
// under concurrent creates, kept across a restart, and kube-apiserver's
// answers where the reference records them.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniapi/miniapi/pkg/apiserver/allocator"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// serviceServer is a Server over the bbolt file at path, with the given
// Service ranges; stop closes it so that the file can be opened again.
type serviceServer struct {
	*testServer
	store *boltstore.Store
	stop  func()
}

func startServiceServer(t *testing.T, path string, opts registry.Options) *serviceServer {
	t.Helper()
	store, err := boltstore.Open(path, boltstore.Options{HistorySize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	api, err := New(Config{Store: store, Builtin: opts, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(api)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = api.EndWatches(context.Background())
			hs.Close()
			_ = store.Close()
		})
	}
	t.Cleanup(stop)
	return &serviceServer{testServer: &testServer{api: api, url: hs.URL}, store: store, stop: stop}
}

func svcClient(t *testing.T, ts *serviceServer) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(&rest.Config{Host: ts.url, QPS: 5000, Burst: 5000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func clusterIPService(name, clusterIP string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{
			ClusterIP: clusterIP, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Port: 80}},
		},
	}
}

func nodePortService(name string, nodePort int32) *corev1.Service {
	svc := clusterIPService(name, "")
	svc.Spec.Type = corev1.ServiceTypeNodePort
	svc.Spec.Ports[0].NodePort = nodePort
	return svc
}

func createService(t *testing.T, c kubernetes.Interface, svc *corev1.Service) *corev1.Service {
	t.Helper()
	out, err := c.CoreV1().Services("default").Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s: %v", svc.Name, err)
	}
	return out
}

// wantInvalid fails unless err is a 422 with exactly message.
func wantInvalid(t *testing.T, err error, message string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("err = %v, want 422 Invalid", err)
	}
	if got := err.Error(); got != message {
		t.Errorf("message:\n got: %s\nwant: %s", got, message)
	}
}

func TestServiceGetsClusterIPInRangeWithDefaults(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{})
	c := svcClient(t, ts)
	svc := createService(t, c, clusterIPService("web", ""))
	ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
	if err != nil || !netip.MustParsePrefix("10.96.0.0/12").Contains(ip) {
		t.Fatalf("clusterIP %q is not in 10.96.0.0/12", svc.Spec.ClusterIP)
	}
	spec := svc.Spec
	if len(spec.ClusterIPs) != 1 || spec.ClusterIPs[0] != spec.ClusterIP {
		t.Errorf("clusterIPs = %v", spec.ClusterIPs)
	}
	if spec.Type != corev1.ServiceTypeClusterIP || spec.SessionAffinity != corev1.ServiceAffinityNone ||
		spec.Ports[0].Protocol != corev1.ProtocolTCP || spec.Ports[0].TargetPort != intstr.FromInt32(80) ||
		spec.IPFamilyPolicy == nil || *spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack ||
		len(spec.IPFamilies) != 1 || spec.IPFamilies[0] != corev1.IPv4Protocol ||
		spec.InternalTrafficPolicy == nil || *spec.InternalTrafficPolicy != corev1.ServiceInternalTrafficPolicyCluster ||
		spec.ExternalTrafficPolicy != "" {
		t.Errorf("defaults: %+v", spec)
	}

	headless := createService(t, c, clusterIPService("headless", corev1.ClusterIPNone))
	if headless.Spec.ClusterIP != corev1.ClusterIPNone || len(headless.Spec.ClusterIPs) != 1 || headless.Spec.ClusterIPs[0] != corev1.ClusterIPNone {
		t.Errorf("headless: clusterIP %q, clusterIPs %v", headless.Spec.ClusterIP, headless.Spec.ClusterIPs)
	}
	ext := createService(t, c, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}})
	if ext.Spec.ClusterIP != "" || ext.Spec.ClusterIPs != nil || ext.Spec.IPFamilyPolicy != nil || ext.Spec.InternalTrafficPolicy != nil {
		t.Errorf("ExternalName got %+v", ext.Spec)
	}
}

func TestKubernetesServiceIsSeeded(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{ServiceClusterIPRange: "10.100.0.0/16"})
	svc, err := svcClient(t, ts).CoreV1().Services("default").Get(context.Background(), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := svc.Spec.Ports
	if svc.Spec.ClusterIP != "10.100.0.1" || len(p) != 1 || p[0].Name != "https" || p[0].Port != 443 ||
		p[0].TargetPort != intstr.FromInt32(6443) || p[0].Protocol != corev1.ProtocolTCP ||
		svc.Labels["component"] != "apiserver" || svc.Labels["provider"] != "kubernetes" {
		t.Errorf("default/kubernetes = %+v %+v", svc.Labels, svc.Spec)
	}
}

func TestRequestedClusterIPTakenAndReleased(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{ServiceClusterIPRange: "10.96.0.0/24"})
	c := svcClient(t, ts)
	ctx := context.Background()
	if got := createService(t, c, clusterIPService("a", "10.96.0.50")).Spec.ClusterIP; got != "10.96.0.50" {
		t.Fatalf("requested 10.96.0.50, got %s", got)
	}
	_, err := c.CoreV1().Services("default").Create(ctx, clusterIPService("b", "10.96.0.50"), metav1.CreateOptions{})
	wantInvalid(t, err, `Service "b" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.50"]: failed to allocate IP 10.96.0.50: provided IP is already allocated`)
	_, err = c.CoreV1().Services("default").Create(ctx, clusterIPService("noports", "10.96.5.5"), metav1.CreateOptions{})
	wantInvalid(t, err, `Service "noports" is invalid: spec.clusterIPs: Invalid value: ["10.96.5.5"]: failed to allocate IP 10.96.5.5: the provided IP (10.96.5.5) is not in the valid range. The range of valid IPs is 10.96.0.0/24`)

	if err := c.CoreV1().Services("default").Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := createService(t, c, clusterIPService("b", "10.96.0.50")).Spec.ClusterIP; got != "10.96.0.50" {
		t.Errorf("after delete, requested 10.96.0.50 got %s", got)
	}
}

// A create that fails validation gives back what it took.
func TestInvalidCreateReleasesItsAllocation(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{})
	c := svcClient(t, ts)
	bad := clusterIPService("bad", "10.96.0.77")
	bad.Spec.Ports = append(bad.Spec.Ports, corev1.ServicePort{Port: 80})
	_, err := c.CoreV1().Services("default").Create(context.Background(), bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("duplicate ports: %v", err)
	}
	if got := createService(t, c, clusterIPService("good", "10.96.0.77")).Spec.ClusterIP; got != "10.96.0.77" {
		t.Errorf("got %s", got)
	}
}

func TestDuplicatePortsAnswerAsKube(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{})
	code, _, body := ts.do(t, "POST", "/api/v1/namespaces/default/services", "application/json",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"dup"},"spec":{"ports":[{"port":80},{"port":80}]}}`)
	if code != 422 {
		t.Fatalf("code %d: %s", code, body)
	}
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	want := `Service "dup" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value, spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}]`
	if st.Message != want {
		t.Errorf("message:\n got: %s\nwant: %s", st.Message, want)
	}
	if len(st.Details.Causes) != 3 || st.Details.Causes[2].Type != metav1.CauseTypeFieldValueDuplicate || st.Details.Causes[2].Field != "spec.ports[1]" {
		t.Errorf("causes = %+v", st.Details.Causes)
	}
}

func TestNodePortAllocatedAndReleasedOnTypeChange(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{})
	c := svcClient(t, ts)
	ctx := context.Background()
	svc := createService(t, c, nodePortService("np", 0))
	np := svc.Spec.Ports[0].NodePort
	if np < 30000 || np > 32767 || svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
		t.Fatalf("nodePort %d, externalTrafficPolicy %q", np, svc.Spec.ExternalTrafficPolicy)
	}
	_, err := c.CoreV1().Services("default").Create(ctx, nodePortService("np3", np), metav1.CreateOptions{})
	wantInvalid(t, err, fmt.Sprintf(`Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: %d: provided port is already allocated`, np))
	_, err = c.CoreV1().Services("default").Create(ctx, nodePortService("np2", 20000), metav1.CreateOptions{})
	wantInvalid(t, err, `Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 20000: provided port is not in the valid range. The range of valid ports is 30000-32767`)

	// NodePort -> ClusterIP drops the nodePort and gives it back.
	out, err := c.CoreV1().Services("default").Patch(ctx, "np", types.MergePatchType, []byte(`{"spec":{"type":"ClusterIP"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Spec.Ports[0].NodePort != 0 || out.Spec.ExternalTrafficPolicy != "" || out.Spec.ClusterIP != svc.Spec.ClusterIP {
		t.Errorf("after NodePort->ClusterIP: %+v", out.Spec)
	}
	if got := createService(t, c, nodePortService("np4", np)).Spec.Ports[0].NodePort; got != np {
		t.Errorf("the released nodePort %d was not free: got %d", np, got)
	}

	// ClusterIP -> NodePort takes one.
	out, err = c.CoreV1().Services("default").Patch(ctx, "np", types.MergePatchType, []byte(`{"spec":{"type":"NodePort"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := out.Spec.Ports[0].NodePort; p < 30000 || p == np {
		t.Errorf("ClusterIP->NodePort got nodePort %d", p)
	}
}

// The reference's finding: ClusterIP -> ExternalName by merge patch is
// accepted, and drops the ClusterIP fields; the ClusterIP is free again.
func TestClusterIPToExternalName(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{})
	c := svcClient(t, ts)
	ctx := context.Background()
	createService(t, c, clusterIPService("web", "10.96.0.139"))
	_, err := c.CoreV1().Services("default").Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"type":"ExternalName"}}`), metav1.PatchOptions{})
	wantInvalid(t, err, `Service "web" is invalid: spec.externalName: Required value`)
	_, err = c.CoreV1().Services("default").Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"clusterIP":"10.96.0.99","clusterIPs":["10.96.0.99"]}}`), metav1.PatchOptions{})
	wantInvalid(t, err, `Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.0.99"]: may not change once set`)

	out, err := c.CoreV1().Services("default").Patch(ctx, "web", types.MergePatchType,
		[]byte(`{"spec":{"type":"ExternalName","externalName":"x.example.com"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := out.Spec
	if s.ClusterIP != "" || s.ClusterIPs != nil || s.IPFamilies != nil || s.IPFamilyPolicy != nil || s.InternalTrafficPolicy != nil {
		t.Errorf("ExternalName kept %+v", s)
	}
	if got := createService(t, c, clusterIPService("again", "10.96.0.139")).Spec.ClusterIP; got != "10.96.0.139" {
		t.Errorf("the released ClusterIP was not free: %s", got)
	}
	_, err = c.CoreV1().Services("default").Patch(ctx, "again", types.JSONPatchType,
		[]byte(`[{"op":"add","path":"/spec/ports/0/nodePort","value":30080}]`), metav1.PatchOptions{})
	wantInvalid(t, err, "Service \"again\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'")
}

// A dry run takes nothing, but answers with values.
func TestServiceDryRunAllocatesNothing(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{})
	c := svcClient(t, ts)
	ctx := context.Background()
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	svc, err := c.CoreV1().Services("default").Create(ctx, nodePortService("d", 0), dry)
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.ClusterIP == "" || svc.Spec.Ports[0].NodePort == 0 {
		t.Errorf("dry run answered %+v", svc.Spec)
	}
	if _, err := c.CoreV1().Services("default").Create(ctx, nodePortService("d2", 20000), dry); err != nil {
		t.Errorf("dry run of an out-of-range nodePort (kube accepts it): %v", err)
	}
	requested := nodePortService("d3", 30500)
	requested.Spec.ClusterIP = "10.96.0.200"
	if _, err := c.CoreV1().Services("default").Create(ctx, requested, dry); err != nil {
		t.Fatal(err)
	}
	real := createService(t, c, requested)
	if real.Spec.ClusterIP != "10.96.0.200" || real.Spec.Ports[0].NodePort != 30500 {
		t.Errorf("a dry run kept what it asked for: %+v", real.Spec)
	}
}

// Many concurrent creates through HTTP never get the same ClusterIP or
// NodePort.
func TestConcurrentServiceCreatesGetDistinctValues(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{ServiceClusterIPRange: "10.96.0.0/24"})
	c := svcClient(t, ts)
	const n = 60
	out := make([]*corev1.Service, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = c.CoreV1().Services("default").Create(context.Background(), nodePortService(fmt.Sprintf("s%d", i), 0), metav1.CreateOptions{})
		}()
	}
	wg.Wait()
	ips, ports := map[string]string{}, map[int32]string{}
	for i, svc := range out {
		if errs[i] != nil {
			t.Fatalf("create %d: %v", i, errs[i])
		}
		if other, ok := ips[svc.Spec.ClusterIP]; ok {
			t.Errorf("%s and %s share ClusterIP %s", svc.Name, other, svc.Spec.ClusterIP)
		}
		if other, ok := ports[svc.Spec.Ports[0].NodePort]; ok {
			t.Errorf("%s and %s share NodePort %d", svc.Name, other, svc.Spec.Ports[0].NodePort)
		}
		ips[svc.Spec.ClusterIP], ports[svc.Spec.Ports[0].NodePort] = svc.Name, svc.Name
	}
}

// Allocations survive a restart, and a value leaked by a crash between
// allocating and storing is free again after one.
func TestServiceAllocationsSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	ts := startServiceServer(t, path, registry.Options{})
	svc := createService(t, svcClient(t, ts), nodePortService("kept", 0))
	// A crash after allocating for a Service that was never stored.
	ips, err := allocator.NewIPRange(ts.store, "/ranges/serviceips", registry.DefaultServiceClusterIPRange)
	if err != nil {
		t.Fatal(err)
	}
	if err := ips.Allocate(context.Background(), netip.MustParseAddr("10.96.0.99")); err != nil {
		t.Fatal(err)
	}
	ts.stop()

	ts = startServiceServer(t, path, registry.Options{})
	c := svcClient(t, ts)
	ctx := context.Background()
	_, err = c.CoreV1().Services("default").Create(ctx, clusterIPService("same-ip", svc.Spec.ClusterIP), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "provided IP is already allocated") {
		t.Errorf("ClusterIP of a stored Service after restart: %v", err)
	}
	_, err = c.CoreV1().Services("default").Create(ctx, nodePortService("same-port", svc.Spec.Ports[0].NodePort), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "provided port is already allocated") {
		t.Errorf("NodePort of a stored Service after restart: %v", err)
	}
	if _, err := c.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := createService(t, c, clusterIPService("leaked", "10.96.0.99")).Spec.ClusterIP; got != "10.96.0.99" {
		t.Errorf("the leaked ClusterIP was not repaired: %s", got)
	}
}

func TestServiceStatusAndFieldSelectors(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{})
	c := svcClient(t, ts)
	ctx := context.Background()
	lb := clusterIPService("lb", "")
	lb.Spec.Type = corev1.ServiceTypeLoadBalancer
	lb = createService(t, c, lb)
	if lb.Spec.AllocateLoadBalancerNodePorts == nil || !*lb.Spec.AllocateLoadBalancerNodePorts || lb.Spec.Ports[0].NodePort == 0 {
		t.Errorf("LoadBalancer defaults: %+v", lb.Spec)
	}
	// status writes ignore spec; spec writes ignore status.
	lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	lb.Spec.Selector = map[string]string{"app": "other"}
	out, err := c.CoreV1().Services("default").UpdateStatus(ctx, lb, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Spec.Selector["app"] != "lb" || len(out.Status.LoadBalancer.Ingress) != 1 || out.Status.LoadBalancer.Ingress[0].IPMode == nil {
		t.Errorf("status write: spec %v, status %+v", out.Spec.Selector, out.Status)
	}
	out.Status = corev1.ServiceStatus{}
	out, err = c.CoreV1().Services("default").Update(ctx, out, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Status.LoadBalancer.Ingress) != 1 {
		t.Errorf("a spec write cleared the status: %+v", out.Status)
	}

	createService(t, c, nodePortService("np", 0))
	list, err := c.CoreV1().Services("").List(ctx, metav1.ListOptions{FieldSelector: "spec.type=NodePort"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "np" {
		t.Errorf("spec.type=NodePort selected %d items", len(list.Items))
	}
	list, err = c.CoreV1().Services("").List(ctx, metav1.ListOptions{FieldSelector: "spec.clusterIP=10.96.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "kubernetes" {
		t.Errorf("spec.clusterIP=10.96.0.1 selected %v", list.Items)
	}
}

// Discovery lists services as the reference's /api/v1 does (section 21).
func TestServiceDiscovery(t *testing.T) {
	ts := startServiceServer(t, filepath.Join(t.TempDir(), "db"), registry.Options{})
	code, _, body := ts.do(t, "GET", "/api/v1", "", "")
	if code != 200 {
		t.Fatalf("GET /api/v1: %d %s", code, body)
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range list.APIResources {
		b, _ := json.Marshal(r)
		got[r.Name] = string(b)
	}
	for name, want := range map[string]string{
		"services":        `{"name":"services","singularName":"service","namespaced":true,"kind":"Service","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["svc"],"categories":["all"],"storageVersionHash":"0/CO1lhkEBI="}`,
		"services/proxy":  `{"name":"services/proxy","singularName":"","namespaced":true,"kind":"ServiceProxyOptions","verbs":["create","delete","get","patch","update"]}`,
		"services/status": `{"name":"services/status","singularName":"","namespaced":true,"kind":"Service","verbs":["get","patch","update"]}`,
	} {
		if got[name] != want {
			t.Errorf("%s:\n got: %s\nwant: %s", name, got[name], want)
		}
	}
	code, _, body = ts.do(t, "GET", "/api/v1/namespaces/default/services/kubernetes/proxy", "", "")
	if code != 400 || !strings.Contains(body, "miniapi runs no containers: services/proxy is not available") {
		t.Errorf("services/proxy: %d %s", code, body)
	}
}

// BenchmarkServiceCreate creates Services through HTTP from parallel
// clients: headless (only the object write), ClusterIP (a ClusterIP
// allocation, a compare-and-swap write, then the object) and NodePort (a
// ClusterIP and a NodePort allocation, then the object).
func BenchmarkServiceCreate(b *testing.B) {
	for _, c := range []struct {
		name string
		svc  func(name string) *corev1.Service
	}{
		{"headless", func(name string) *corev1.Service { return clusterIPService(name, corev1.ClusterIPNone) }},
		{"clusterip", func(name string) *corev1.Service { return clusterIPService(name, "") }},
		{"nodeport", func(name string) *corev1.Service { return nodePortService(name, 0) }},
	} {
		b.Run(c.name, func(b *testing.B) { benchmarkServiceCreate(b, c.svc) })
	}
}

func benchmarkServiceCreate(b *testing.B, newService func(name string) *corev1.Service) {
	store, err := boltstore.Open(filepath.Join(b.TempDir(), "db"), boltstore.Options{HistorySize: 1000})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	api, err := New(Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	if err := api.Bootstrap(context.Background()); err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(api)
	defer hs.Close()
	c, err := kubernetes.NewForConfig(&rest.Config{Host: hs.URL, QPS: 1e6, Burst: 1e6})
	if err != nil {
		b.Fatal(err)
	}
	var n sync.Mutex
	next := 0
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n.Lock()
			next++
			name := fmt.Sprintf("s%d", next)
			n.Unlock()
			if _, err := c.CoreV1().Services("default").Create(context.Background(), newService(name), metav1.CreateOptions{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
