package apiserver

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const webDeploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: nginx, image: nginx}
`

// entries reads the managedFields of a JSON object, as
// "manager operation subresource fields" lines.
func entries(t *testing.T, body string) []string {
	t.Helper()
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &obj); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	for _, e := range obj.Metadata.ManagedFields {
		fields := ""
		if e.FieldsV1 != nil {
			fields = e.FieldsV1.GetRawString()
		}
		if e.Time == nil && e.Subresource != "scale" {
			t.Errorf("entry of %s has no time", e.Manager)
		}
		out = append(out, strings.Join([]string{e.Manager, string(e.Operation), e.Subresource, fields}, " "))
	}
	return out
}

func wantEntries(t *testing.T, what, body string, want ...string) {
	t.Helper()
	got := entries(t, body)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: managedFields\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestManagedFieldsOfSubresources: status writes get their own entries
// with subresource status and never own spec; apply works on status and
// on scale, whose entry moves spec.replicas away from its former owner.
func TestManagedFieldsOfSubresources(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, "PATCH", deployments+"/web?fieldManager=alice", applyYAML, webDeploymentYAML)
	if code != 201 {
		t.Fatalf("apply: %d %s", code, body)
	}
	const aliceSpec = `alice Apply  {"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`
	wantEntries(t, "apply", body, aliceSpec)

	// A status apply that also names spec: spec is not the status's.
	code, _, body = ts.do(t, "PATCH", deployments+"/web/status?fieldManager=ctrl", applyYAML,
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 9\nstatus:\n  observedGeneration: 1\n")
	if code != 200 || strings.Contains(body, `"replicas":9`) {
		t.Fatalf("status apply: %d %s", code, body)
	}
	wantEntries(t, "status apply", body, aliceSpec, `ctrl Apply status {"f:status":{"f:observedGeneration":{}}}`)

	// An update of status by a User-Agent's manager.
	code, _, body = ts.do(t, "PATCH", deployments+"/web/status", mergePatchType, `{"status":{"replicas":1,"spec":null}}`,
		"User-Agent", "status-writer/1.0 (linux/amd64)")
	if code != 200 {
		t.Fatalf("status patch: %d %s", code, body)
	}
	wantEntries(t, "status patch", body, aliceSpec, `ctrl Apply status {"f:status":{"f:observedGeneration":{}}}`,
		`status-writer Update status {"f:status":{"f:replicas":{}}}`)

	// Apply on scale: conflicts with alice, then takes spec.replicas.
	scale := "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: web\nspec:\n  replicas: 4\n"
	code, _, body = ts.do(t, "PATCH", deployments+"/web/scale?fieldManager=hpa", applyYAML, scale)
	if code != 409 || !strings.Contains(body, `Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas`) {
		t.Fatalf("scale apply: %d %s", code, body)
	}
	code, _, body = ts.do(t, "PATCH", deployments+"/web/scale?fieldManager=hpa&force=true", applyYAML, scale)
	if code != 200 || !strings.Contains(body, `"replicas":4`) {
		t.Fatalf("forced scale apply: %d %s", code, body)
	}
	_, _, body = ts.do(t, "GET", deployments+"/web", "", "")
	// The scale entry has no time (kube's scale handler keeps the
	// parent's times, which a new manager has none of), so it sorts first.
	wantEntries(t, "scale apply", body,
		`hpa Apply scale {"f:spec":{"f:replicas":{}}}`,
		strings.Replace(aliceSpec, `"f:replicas":{},`, "", 1),
		`ctrl Apply status {"f:status":{"f:observedGeneration":{}}}`,
		`status-writer Update status {"f:status":{"f:replicas":{}}}`)
}

// TestManagedFieldsOfUpdates: a create records the creator's fields,
// defaults included; a PUT by the same manager keeps one entry; a write
// that changes nothing keeps the resourceVersion; so does an apply that
// changes nothing, though it would refresh its entry's time; a dry-run
// apply answers the result and stores nothing.
func TestManagedFieldsOfUpdates(t *testing.T) {
	ts := startTestServer(t)
	const cms = "/api/v1/namespaces/default/configmaps"
	code, _, body := ts.do(t, "POST", cms, "application/json", `{"metadata":{"name":"c"},"data":{"a":"1"}}`,
		"User-Agent", "kubectl/v1.37.0 (linux/amd64) kubernetes/abcdef")
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	wantEntries(t, "create", body, `kubectl Update  {"f:data":{".":{},"f:a":{}}}`)
	rv := resourceVersionIn(t, body)

	code, _, body = ts.do(t, "PUT", cms+"/c?fieldManager=kubectl", "application/json", `{"metadata":{"name":"c"},"data":{"a":"1"}}`)
	if code != 200 || resourceVersionIn(t, body) != rv {
		t.Errorf("unchanged PUT: %d %s", code, body)
	}

	apply := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  b: \"2\"\n"
	code, _, body = ts.do(t, "PATCH", cms+"/c?fieldManager=me", applyYAML, apply)
	if code != 200 {
		t.Fatalf("apply: %d %s", code, body)
	}
	rv = resourceVersionIn(t, body)
	code, _, body = ts.do(t, "PATCH", cms+"/c?fieldManager=me", applyYAML, apply)
	if code != 200 || resourceVersionIn(t, body) != rv {
		t.Errorf("unchanged apply: %d %s (resourceVersion was %s)", code, body, rv)
	}

	code, _, body = ts.do(t, "PATCH", cms+"/c?fieldManager=me&dryRun=All", applyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  b: \"3\"\n")
	if code != 200 || !strings.Contains(body, `"b":"3"`) {
		t.Errorf("dry-run apply: %d %s", code, body)
	}
	code, _, body = ts.do(t, "PATCH", cms+"/new?fieldManager=me&dryRun=All", applyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\ndata:\n  k: v\n")
	if code != 201 || !strings.Contains(body, `"manager":"me","operation":"Apply"`) {
		t.Errorf("dry-run apply of a new object: %d %s", code, body)
	}
	if code, _, body = ts.do(t, "GET", cms+"/c", "", ""); !strings.Contains(body, `"b":"2"`) {
		t.Errorf("after dry runs: %d %s", code, body)
	}
	if code, _, _ = ts.do(t, "GET", cms+"/new", "", ""); code != 404 {
		t.Errorf("dry-run apply stored an object: %d", code)
	}

	code, _, body = ts.do(t, "PATCH", cms+"/c?force=true", mergePatchType, `{"data":{"x":"y"}}`)
	if code != 422 || !strings.Contains(body, "force: Forbidden: may not be specified for non-apply patch") {
		t.Errorf("force on a merge patch: %d %s", code, body)
	}
}

func resourceVersionIn(t *testing.T, body string) string {
	t.Helper()
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &obj); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return obj.Metadata.ResourceVersion
}

// TestApplyErrors: a configuration of another kind is a 400; one the
// schema refuses is kube's bare 500 with the field manager's message.
func TestApplyErrors(t *testing.T) {
	ts := startTestServer(t)
	const path = "/api/v1/namespaces/default/configmaps/x?fieldManager=m"
	code, _, body := ts.do(t, "PATCH", path, applyYAML, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n")
	if code != 400 || !strings.Contains(body, `"message":"invalid object type: apps/v1, Kind=Deployment","reason":"BadRequest"`) {
		t.Errorf("another kind: %d %s", code, body)
	}
	code, _, body = ts.do(t, "PATCH", path, applyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nfoo: bar\n")
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"failed to create typed patch object (/x; /v1, Kind=ConfigMap): .foo: field not declared in schema","code":500}`
	if code != 500 || strings.TrimSpace(body) != want {
		t.Errorf("unknown field: %d %s", code, body)
	}
}
