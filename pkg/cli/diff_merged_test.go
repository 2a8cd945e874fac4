package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// recordedRequest is what diff sent to the server.
type recordedRequest struct {
	method, path, query, contentType, body string
}

// recordingServer answers every request with reply and keeps what it got.
type recordingServer struct {
	mu   sync.Mutex
	reqs []recordedRequest
}

func (s *recordingServer) start(t *testing.T, reply string) dynamic.Interface {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recordedRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), string(body)})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	dyn, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

func (s *recordingServer) requests() []recordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recordedRequest(nil), s.reqs...)
}

const diffLiveCM = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns","resourceVersion":"7",
	"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"cm\",\"namespace\":\"ns\"}}\n"}},
	"data":{"a":"1"}}`

func configMapInfo(t *testing.T, manifest string) *objectInfo {
	t.Helper()
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	m := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, GroupVersionKind: gvk, Scope: meta.RESTScopeNamespace}
	return &objectInfo{Source: "f.yaml", Mapping: m, Namespace: "ns", Name: "cm", Obj: mustUnstructured(t, manifest)}
}

func TestDiffMergedClientSide(t *testing.T) {
	live := mustUnstructured(t, diffLiveCM)
	for _, c := range []struct {
		name      string
		manifest  string
		unlocked  bool
		wantPatch string // "" when no request is expected
	}{
		{"unchanged", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"},"data":{"a":"1"}}`, false, ""},
		{"changed", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"},"data":{"a":"2"}}`, false,
			`{"data":{"a":"2"},"metadata":{"resourceVersion":"7"}}`},
		{"unlocked", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"},"data":{"a":"2"}}`, true,
			`{"data":{"a":"2"}}`},
	} {
		var rec recordingServer
		dyn := rec.start(t, diffLiveCM)
		info := configMapInfo(t, c.manifest)
		apply := diffApply{manager: fieldManagerApply}
		got, err := apply.merged(context.Background(), info.client(dyn), info, live, c.unlocked)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		reqs := rec.requests()
		if c.wantPatch == "" {
			if len(reqs) != 0 || got != live {
				t.Errorf("%s: want the live object and no request, got %d requests", c.name, len(reqs))
			}
			continue
		}
		want := recordedRequest{"PATCH", "/api/v1/namespaces/ns/configmaps/cm", "dryRun=All&fieldManager=kubectl-client-side-apply",
			"application/strategic-merge-patch+json", c.wantPatch}
		if len(reqs) != 1 || reqs[0] != want {
			t.Errorf("%s: requests %+v, want %+v", c.name, reqs, want)
		}
	}
}

func TestDiffMergedCreateAndServerSide(t *testing.T) {
	manifest := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns","resourceVersion":"3"},"data":{"a":"2"}}`
	var rec recordingServer
	dyn := rec.start(t, diffLiveCM)

	info := configMapInfo(t, manifest)
	if _, err := (diffApply{manager: fieldManagerApply}).merged(context.Background(), info.client(dyn), info, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := (diffApply{serverSide: true, force: true, manager: "kubectl"}).merged(context.Background(), info.client(dyn), info, &unstructured.Unstructured{}, false); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	if len(reqs) != 2 {
		t.Fatalf("requests: %+v", reqs)
	}
	create, ssa := reqs[0], reqs[1]
	if create.method != "POST" || create.query != "dryRun=All&fieldManager=kubectl-client-side-apply" || strings.Contains(create.body, "resourceVersion") {
		t.Errorf("dry-run create: %+v", create)
	}
	if ssa.method != "PATCH" || ssa.contentType != "application/apply-patch+yaml" || ssa.query != "dryRun=All&fieldManager=kubectl&force=true" ||
		!strings.Contains(ssa.body, `"a":"2"`) {
		t.Errorf("dry-run server-side apply: %+v", ssa)
	}
	if info.Obj.GetResourceVersion() != "3" {
		t.Error("the manifest's object was changed")
	}
}
