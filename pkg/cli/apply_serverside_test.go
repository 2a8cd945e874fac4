package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// TestApplyFieldManager: server-side apply defaults to "kubectl", client-side
// apply to "kubectl-client-side-apply", and --field-manager wins over both.
func TestApplyFieldManager(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "kubectl-client-side-apply"},
		{[]string{"--server-side"}, "kubectl"},
		{[]string{"--server-side", "--field-manager=me"}, "me"},
		{[]string{"--field-manager=me"}, "me"},
	}
	for _, c := range cases {
		var f applyServerSideFlags
		cmd := &cobra.Command{}
		f.add(cmd)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		f.resolveManager(cmd)
		if f.Manager != c.want {
			t.Errorf("%v: manager %q, want %q", c.args, f.Manager, c.want)
		}
	}
}

// ssaServer answers apply patches: a 409 Conflict Status for "taken", the
// object otherwise; it fails requests that are not kubectl's apply patch.
func ssaServer(t *testing.T) dynamic.Interface {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.Method != http.MethodPatch || r.Header.Get("Content-Type") != "application/apply-patch+yaml" ||
			q.Get("fieldManager") != "kubectl" || q.Get("force") != "false" {
			t.Errorf("unexpected request %s %s (%s)", r.Method, r.URL, r.Header.Get("Content-Type"))
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/taken") {
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,` +
				`"message":"Apply failed with 1 conflict: conflict with \"other\": .data.a"}`))
			return
		}
		_, _ = w.Write([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"free","namespace":"d"}}`))
	}))
	t.Cleanup(srv.Close)
	dyn, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// TestServerSideApplyConflictMessage: a conflict prints as kubectl prints
// it, "error: " and the server's message followed by the --force-conflicts
// hint, not as "Error from server (Conflict)".
func TestServerSideApplyConflictMessage(t *testing.T) {
	s := &serverSideApply{dyn: ssaServer(t), manager: "kubectl", validation: "Strict", errOut: &strings.Builder{}}
	mapping := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Scope: meta.RESTScopeNamespace}
	info := func(name string) *objectInfo {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": "d"}}}
		return &objectInfo{Mapping: mapping, Namespace: "d", Name: name, Obj: obj}
	}
	if err := s.applyOne(context.Background(), info("free")); err != nil {
		t.Fatalf("apply free: %v", err)
	}
	err := s.applyOne(context.Background(), info("taken"))
	if err == nil {
		t.Fatal("apply taken: no error")
	}
	want := "error: Apply failed with 1 conflict: conflict with \"other\": .data.a\nPlease review the fields above--they currently have other managers."
	if msg := ErrorMessage(err); !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, "server-side-apply/#conflicts") {
		t.Errorf("conflict message:\n%s", msg)
	}
}

// TestDecodeObjectManagedFields: managedFields are dropped from objects and
// list items unless kept (get --show-managed-fields).
func TestDecodeObjectManagedFields(t *testing.T) {
	item := `{"metadata":{"name":"a","managedFields":[{"manager":"kubectl"}]}}`
	for _, body := range []string{item, `{"kind":"ConfigMapList","apiVersion":"v1","items":[` + item + `]}`} {
		for _, keep := range []bool{false, true} {
			obj, err := decodeObjectFields([]byte(body), keep)
			if err != nil {
				t.Fatal(err)
			}
			if items, ok := listItems(obj); ok {
				obj = items[0]
			}
			_, has := obj["metadata"].(map[string]any)["managedFields"]
			if has != keep {
				t.Errorf("%s keep=%v: managedFields present=%v", body, keep, has)
			}
		}
	}
}
