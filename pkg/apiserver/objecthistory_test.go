package apiserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// historyOf GETs an object's history and decodes it; path is the part
// after /miniapi/v1/history/.
func historyOf(t *testing.T, ts *testServer, path string) []historyEntry {
	t.Helper()
	code, _, body := ts.do(t, "GET", "/miniapi/v1/history/"+path, "", "")
	if code != 200 {
		t.Fatalf("history of %s: %d %s", path, code, body)
	}
	var h objectHistory
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if h.Kind != "ObjectHistory" {
		t.Errorf("kind %q", h.Kind)
	}
	return h.Items
}

// mustDo sends a request and fails the test unless it answers code.
func mustDo(t *testing.T, ts *testServer, code int, method, path, contentType, body string, header ...string) string {
	t.Helper()
	got, _, out := ts.do(t, method, path, contentType, body, header...)
	if got != code {
		t.Fatalf("%s %s: %d %s", method, path, got, out)
	}
	return out
}

type row struct{ manager, changes string }

func rows(items []historyEntry) []row {
	out := make([]row, len(items))
	for i, it := range items {
		out[i] = row{it.Manager, strings.Join(it.Changes, ", ")}
	}
	return out
}

func sameRows(t *testing.T, got []historyEntry, want []row) {
	t.Helper()
	g := rows(got)
	if len(g) != len(want) {
		t.Fatalf("got %d rows %q, want %q", len(g), g, want)
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("row %d: got %q, want %q", i, g[i], want[i])
		}
	}
}

// TestHistoryOfConfigMap: a create, two updates by two managers and the
// delete are four revisions, each with its writer and its change.
func TestHistoryOfConfigMap(t *testing.T) {
	ts := startTestServer(t)
	const cms = "/api/v1/namespaces/default/configmaps"
	mustDo(t, ts, 201, "POST", cms+"?fieldManager=creator", "application/json",
		`{"metadata":{"name":"cfg"},"data":{"a":"1"}}`)
	mustDo(t, ts, 200, "PUT", cms+"/cfg", "application/json",
		`{"metadata":{"name":"cfg"},"data":{"a":"2"}}`, "User-Agent", "alice/v1.0")
	mustDo(t, ts, 200, "PATCH", cms+"/cfg?fieldManager=bob", "application/merge-patch+json",
		`{"data":{"b":"hello world"}}`)
	mustDo(t, ts, 200, "DELETE", cms+"/cfg", "", "")

	items := historyOf(t, ts, "core/v1/configmaps/default/cfg")
	sameRows(t, items, []row{
		{"creator", "created"},
		{"alice", "data.a: 1 → 2"},
		{"bob", `data.b: <none> → "hello world"`},
		{"-", "deleted"},
	})
	if len(items) != 4 {
		return
	}
	for i, it := range items[:3] {
		var obj struct {
			Kind     string
			Metadata struct{ ResourceVersion string }
		}
		if err := json.Unmarshal(it.Object, &obj); err != nil || obj.Kind != "ConfigMap" || obj.Metadata.ResourceVersion != it.Revision {
			t.Errorf("item %d: object %s (%v), revision %s", i, it.Object, err, it.Revision)
		}
		if it.Time == nil || it.Operation != "Update" || it.Deleted {
			t.Errorf("item %d: %+v", i, it)
		}
	}
	if !items[3].Deleted || !strings.Contains(string(items[3].Object), `"hello world"`) {
		t.Errorf("delete: %+v", items[3])
	}
}

// TestHistoryOfScaledDeployment: a scale through the scale subresource
// shows the replicas' old and new values and kubectl (its User-Agent) as
// the writer, with the generation bump after.
func TestHistoryOfScaledDeployment(t *testing.T) {
	ts := startTestServer(t)
	const deps = "/apis/apps/v1/namespaces/default/deployments"
	mustDo(t, ts, 201, "POST", deps+"?fieldManager=kubectl-create", "application/json",
		`{"metadata":{"name":"web"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}`)
	mustDo(t, ts, 200, "PATCH", deps+"/web/scale", "application/merge-patch+json",
		`{"spec":{"replicas":5}}`, "User-Agent", "kubectl/v1.37.2 (linux/amd64) kubernetes/abc")

	items := historyOf(t, ts, "apps/v1/deployments/default/web")
	sameRows(t, items, []row{
		{"kubectl-create", "created"},
		{"kubectl", "spec.replicas: 3 → 5, metadata.generation: 1 → 2"},
	})
	if len(items) == 2 && items[1].Subresource != "scale" {
		t.Errorf("scale's subresource %q", items[1].Subresource)
	}
}

// TestHistoryKeepsToItsName: web's history leaves out web-1, whose key
// web's is a prefix of.
func TestHistoryKeepsToItsName(t *testing.T) {
	ts := startTestServer(t)
	const cms = "/api/v1/namespaces/default/configmaps"
	mustDo(t, ts, 201, "POST", cms, "application/json", `{"metadata":{"name":"web"},"data":{"a":"1"}}`)
	mustDo(t, ts, 201, "POST", cms, "application/json", `{"metadata":{"name":"web-1"}}`)
	mustDo(t, ts, 200, "PATCH", cms+"/web-1", "application/merge-patch+json", `{"data":{"x":"y"}}`)
	mustDo(t, ts, 200, "PATCH", cms+"/web", "application/merge-patch+json", `{"data":{"a":"2"}}`)

	items := historyOf(t, ts, "core/v1/configmaps/default/web")
	if len(items) != 2 || items[1].Changes[0] != "data.a: 1 → 2" {
		t.Errorf("web's history: %+v", rows(items))
	}
}

// TestHistoryErrors: an object that never existed is NotFound in
// kube-apiserver's words; a wrong path is a 404 or a 400.
func TestHistoryErrors(t *testing.T) {
	ts := startTestServer(t)
	for path, want := range map[string]string{
		"apps/v1/deployments/default/nope":   `deployments.apps \"nope\" not found`,
		"core/v1/nosuchresource/default/x":   `the server could not find the requested resource`,
		"core/v1/configmaps/-/x":             `needs its namespace`,
		"core/v1/namespaces/default/x":       `takes \"-\" for its namespace`,
		"rbac.authorization.k8s.io/v1/x/-/y": `the server could not find the requested resource`,
	} {
		_, _, body := ts.do(t, "GET", "/miniapi/v1/history/"+path, "", "")
		if !strings.Contains(body, want) || !strings.Contains(body, `"kind":"Status"`) {
			t.Errorf("%s: %s, want %s", path, body, want)
		}
	}
}

// TestHistoryOfClusterScopedAndCustom: a cluster-scoped object takes "-"
// for its namespace, and a custom resource is decoded by its schema.
func TestHistoryOfClusterScopedAndCustom(t *testing.T) {
	ts := startTestServer(t)
	createCRD(t, ts, widgetCRD, widgets)
	mustDo(t, ts, 201, "POST", widgets+"?fieldManager=maker", "application/json",
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":2,"color":"blue"}}`)
	mustDo(t, ts, 200, "PATCH", widgets+"/w?fieldManager=grower", "application/merge-patch+json", `{"spec":{"size":3}}`)

	sameRows(t, historyOf(t, ts, "example.com/v1/widgets/default/w"), []row{
		{"maker", "created"},
		{"grower", "spec.size: 2 → 3, metadata.generation: 1 → 2"},
	})
	crd := historyOf(t, ts, "apiextensions.k8s.io/v1/customresourcedefinitions/-/widgets.example.com")
	if len(crd) < 2 || crd[0].Changes[0] != "created" {
		t.Errorf("the CRD's history: %+v", rows(crd))
	}
}

// TestHistoryNeedsTheToken: the history path is authenticated like every
// API path.
func TestHistoryNeedsTheToken(t *testing.T) {
	ts := startTokenServer(t)
	auth := []string{"Authorization", "Bearer " + adminToken}
	mustDo(t, ts, 201, "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"c"}}`, auth...)
	const path = "/miniapi/v1/history/core/v1/configmaps/default/c"
	mustDo(t, ts, 401, "GET", path, "", "")
	mustDo(t, ts, 401, "GET", path, "", "", "Authorization", "Bearer wrong")
	if out := mustDo(t, ts, 200, "GET", path, "", "", auth...); !strings.Contains(out, `"changes":["created"]`) {
		t.Errorf("with the token: %s", out)
	}
}
