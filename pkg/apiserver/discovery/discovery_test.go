package discovery

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

const kubectlAccept = AggregatedContentType + ",application/json"

func get(t *testing.T, h http.Handler, path, accept string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// builtinGroups are the named groups, in kube-apiserver's order.
const builtinGroups = "apps,events.k8s.io,authentication.k8s.io,authorization.k8s.io,autoscaling,batch,networking.k8s.io,policy,rbac.authorization.k8s.io,storage.k8s.io,scheduling.k8s.io,coordination.k8s.io,discovery.k8s.io"

func TestAggregatedApps(t *testing.T) {
	h := mustHandler(t)
	rec := get(t, h, "/apis", kubectlAccept)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != AggregatedContentType {
		t.Fatalf("status %d, content type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range list.Items {
		names = append(names, g.Name)
	}
	if list.Kind != "APIGroupDiscoveryList" || list.APIVersion != "apidiscovery.k8s.io/v2" || strings.Join(names, ",") != builtinGroups {
		t.Fatalf("groups %v in list = %+v", names, list)
	}
	v := list.Items[0].Versions[0]
	if v.Version != "v1" || v.Freshness != "Current" {
		t.Errorf("version = %+v", v)
	}
	var deploy *apidiscoveryv2.APIResourceDiscovery
	for i := range v.Resources {
		if v.Resources[i].Resource == "deployments" {
			deploy = &v.Resources[i]
		}
	}
	if deploy == nil {
		t.Fatalf("no deployments in %+v", v.Resources)
	}
	if deploy.Scope != "Namespaced" || deploy.SingularResource != "deployment" || deploy.ResponseKind.Kind != "Deployment" ||
		strings.Join(deploy.ShortNames, ",") != "deploy" || strings.Join(deploy.Categories, ",") != "all" ||
		strings.Join(deploy.Verbs, ",") != "create,delete,deletecollection,get,list,patch,update,watch" {
		t.Errorf("deployments = %+v", deploy)
	}
	subs := map[string]string{}
	for _, s := range deploy.Subresources {
		subs[s.Subresource] = s.ResponseKind.Group + "/" + s.ResponseKind.Version + "/" + s.ResponseKind.Kind + " " + strings.Join(s.Verbs, ",")
	}
	want := map[string]string{"scale": "autoscaling/v1/Scale get,patch,update", "status": "//Deployment get,patch,update"}
	if len(subs) != 2 || subs["scale"] != want["scale"] || subs["status"] != want["status"] {
		t.Errorf("subresources = %v, want %v", subs, want)
	}
}

func TestAggregatedCoreAndCaching(t *testing.T) {
	h := mustHandler(t)
	rec := get(t, h, "/api", kubectlAccept)
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "" {
		t.Fatalf("items = %+v", list.Items)
	}
	var names []string
	for _, r := range list.Items[0].Versions[0].Resources {
		names = append(names, r.Resource+":"+string(r.Scope))
	}
	if got := strings.Join(names, " "); got != "configmaps:Namespaced endpoints:Namespaced events:Namespaced limitranges:Namespaced namespaces:Cluster nodes:Cluster persistentvolumeclaims:Namespaced persistentvolumes:Cluster pods:Namespaced podtemplates:Namespaced replicationcontrollers:Namespaced resourcequotas:Namespaced secrets:Namespaced serviceaccounts:Namespaced services:Namespaced" {
		t.Errorf("core resources = %s", got)
	}
	tag := rec.Header().Get("ETag")
	if tag == "" || rec.Header().Get("Vary") != "Accept" || rec.Header().Get("Cache-Control") != "public" {
		t.Errorf("headers = %v", rec.Header())
	}
	if again := get(t, h, "/api", kubectlAccept, "If-None-Match", tag); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("conditional GET = %d %q", again.Code, again.Body.String())
	}
	if other := get(t, h, "/apis", kubectlAccept); other.Header().Get("ETag") == tag {
		t.Error("/api and /apis share an ETag")
	}
}

func TestLegacyDocuments(t *testing.T) {
	h := mustHandler(t)
	api := get(t, h, "/api", "application/json")
	if api.Header().Get("Content-Type") != "application/json" {
		t.Errorf("content type %q", api.Header().Get("Content-Type"))
	}
	if got, want := api.Body.String(), `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"example.com"}]}`; got != want {
		t.Errorf("/api = %s\nwant   %s", got, want)
	}
	if got, want := get(t, h, "/apis", "").Body.String(), `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},`; !strings.HasPrefix(got, want) {
		t.Errorf("/apis = %s\nwant    %s", got, want)
	}
	if got, want := get(t, h, "/apis/apps", "*/*").Body.String(), `{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}`; got != want {
		t.Errorf("/apis/apps = %s\nwant    %s", got, want)
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(get(t, h, "/apis/apps/v1", "application/json").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.APIResources {
		names = append(names, r.Name)
		if r.Name == "deployments/scale" && (r.Group != "autoscaling" || r.Version != "v1" || r.Kind != "Scale" || !r.Namespaced || r.SingularName != "") {
			t.Errorf("deployments/scale = %+v", r)
		}
		if r.Name == "replicasets" && (r.SingularName != "replicaset" || r.StorageVersionHash == "" || r.Kind != "ReplicaSet") {
			t.Errorf("replicasets = %+v", r)
		}
	}
	if got := strings.Join(names, " "); got != "controllerrevisions daemonsets daemonsets/status deployments deployments/scale deployments/status replicasets replicasets/scale replicasets/status statefulsets statefulsets/scale statefulsets/status" {
		t.Errorf("apps/v1 resources = %s", got)
	}
	core := get(t, h, "/api/v1", "application/json").Body.String()
	if !strings.Contains(core, `{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"],`) {
		t.Errorf("/api/v1 namespaces entry missing or different: %s", core)
	}
}

func TestNotFoundAndNotAcceptable(t *testing.T) {
	h := mustHandler(t)
	for _, path := range []string{"/apis/nosuch.example.com", "/apis/apps/v2", "/api/v2"} {
		rec := get(t, h, path, "application/json")
		var s metav1.Status
		_ = json.Unmarshal(rec.Body.Bytes(), &s)
		if rec.Code != 404 || s.Reason != metav1.StatusReasonNotFound {
			t.Errorf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
	}
	if rec := get(t, h, "/apis/apps/v1", "application/vnd.kubernetes.protobuf"); rec.Code != http.StatusNotAcceptable {
		t.Errorf("protobuf only: %d", rec.Code)
	}
	if rec := get(t, h, "/apis/apps/v1", "application/vnd.kubernetes.protobuf,application/json"); rec.Code != 200 {
		t.Errorf("protobuf with JSON fallback: %d", rec.Code)
	}
}

func TestStorageVersionHashMatchesKube(t *testing.T) {
	// Values from kube-apiserver 1.37's /apis/apps/v1 (wire-samples.md).
	for kind, want := range map[string]string{"ControllerRevision": "85nkx63pcBU=", "DaemonSet": "dd7pWHUlMKQ="} {
		if got := storageVersionHash("apps", "v1", kind); got != want {
			t.Errorf("%s: %s, want %s", kind, got, want)
		}
	}
}

// TestClientGoUsesAggregated drives client-go's discovery client, which
// kubectl uses, and checks that it learns everything from two requests.
func TestClientGoUsesAggregated(t *testing.T) {
	h := mustHandler(t)
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lists {
		for _, r := range l.APIResources {
			got = append(got, l.GroupVersion+" "+r.Name)
		}
	}
	sort.Strings(got)
	// Every resource and subresource of the registry, as client-go names them.
	var want []string
	resources, err := registry.Builtin(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resources {
		gv := schema.GroupVersion{Group: r.Group, Version: r.Version}.String()
		want = append(want, gv+" "+r.Resource)
		for sub := range r.Subresources {
			want = append(want, gv+" "+r.Resource+"/"+sub)
		}
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resources:\n got %v\nwant %v", got, want)
	}
	if !strings.Contains(strings.Join(got, ","), "v1 namespaces/finalize,v1 namespaces/status") {
		t.Errorf("namespaces/finalize is not listed: %v", got)
	}
	if n := requests.Load(); n != 2 {
		t.Errorf("client-go sent %d requests, want 2 (aggregated discovery)", n)
	}
	resp, err := http.Post(srv.URL+"/api", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api = %d", resp.StatusCode)
	}
}

// TestClientGoProtobufConfig: clients configured for protobuf (as typed
// clientsets often are) still get the aggregated JSON, which they accept.
func TestClientGoProtobufConfig(t *testing.T) {
	srv := httptest.NewServer(mustHandler(t))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range groups.Groups {
		names = append(names, g.Name+"="+g.PreferredVersion.GroupVersion)
	}
	if got := strings.Join(names, ","); got != "=v1,apps=apps/v1,events.k8s.io=events.k8s.io/v1,authentication.k8s.io=authentication.k8s.io/v1,authorization.k8s.io=authorization.k8s.io/v1,"+
		"autoscaling=autoscaling/v2,batch=batch/v1,networking.k8s.io=networking.k8s.io/v1,policy=policy/v1,rbac.authorization.k8s.io=rbac.authorization.k8s.io/v1,storage.k8s.io=storage.k8s.io/v1,"+
		"scheduling.k8s.io=scheduling.k8s.io/v1,coordination.k8s.io=coordination.k8s.io/v1,discovery.k8s.io=discovery.k8s.io/v1" {
		t.Errorf("groups = %s", got)
	}
}

func mustHandler(t *testing.T) http.Handler {
	t.Helper()
	resources, err := registry.Builtin(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandler(resources)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
