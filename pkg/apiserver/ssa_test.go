package apiserver

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const applyYAML = "application/apply-patch+yaml"

// volatile matches the values that differ between runs: uid,
// resourceVersion and timestamps.
var volatile = regexp.MustCompile(`("(?:uid|resourceVersion|creationTimestamp|time)": )"[^"]*"`)

// normalizeVolatile blanks the volatile values and the layout. A Status's
// causes are sorted by field: kube-apiserver lists conflicts in map
// order, so their order differs from one request to the next.
func normalizeVolatile(s string) string {
	var st metav1.Status
	if json.Unmarshal([]byte(s), &st) == nil && st.Kind == "Status" && st.Details != nil {
		sort.Slice(st.Details.Causes, func(i, j int) bool { return st.Details.Causes[i].Field < st.Details.Causes[j].Field })
		b, _ := json.Marshal(st)
		s = string(b)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err == nil {
		s = buf.String()
	}
	return volatile.ReplaceAllString(strings.TrimSpace(s), `$1"X"`)
}

// wantReference compares an answer with one recorded from a real
// kube-apiserver (testdata/ssa), uids, resourceVersions and times aside.
func wantReference(t *testing.T, name string, code, wantCode int, got string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ssa", name))
	if err != nil {
		t.Fatal(err)
	}
	if code != wantCode {
		t.Errorf("%s: code %d, want %d: %s", name, code, wantCode, got)
	}
	if g, w := normalizeVolatile(got), normalizeVolatile(string(b)); g != w {
		t.Errorf("%s:\n got: %s\nwant: %s", name, g, w)
	}
}

// curl makes the server indent its JSON, as the reference was recorded.
var curl = []string{"User-Agent", "curl/8.5.0"}

// TestServerSideApplyReference replays section 24 of the reference: an
// apply, an update by another manager, conflicts with one and with two
// managers, force, a manager dropping fields, and the errors.
func TestServerSideApplyReference(t *testing.T) {
	ts := startTestServer(t)
	const path = "/api/v1/namespaces/default/configmaps/ssa"
	code, _, body := ts.do(t, "PATCH", path+"?fieldManager=alice", applyYAML, `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
  labels:
    owner: alice
data:
  a: "1"
  b: "2"
`, curl...)
	wantReference(t, "01-alice-apply.json", code, 201, body)

	var cm map[string]any
	if err := json.Unmarshal([]byte(body), &cm); err != nil {
		t.Fatal(err)
	}
	md := cm["metadata"].(map[string]any)
	delete(md, "managedFields")
	md["labels"] = map[string]any{"owner": "bob"}
	cm["data"].(map[string]any)["c"] = "3"
	put, _ := json.Marshal(cm)
	code, _, body = ts.do(t, "PUT", path+"?fieldManager=bob", "application/json", string(put), curl...)
	if code != 200 {
		t.Fatalf("bob's PUT: %d %s", code, body)
	}
	var updated struct {
		Metadata struct {
			ManagedFields json.RawMessage `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &updated); err != nil {
		t.Fatal(err)
	}
	indented, _ := json.MarshalIndent(json.RawMessage(updated.Metadata.ManagedFields), "", "  ")
	wantReference(t, "02-bob-put-managedfields.json", code, 200, string(indented))

	code, _, body = ts.do(t, "PATCH", path+"?fieldManager=bob", applyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: \"bob\"\n", curl...)
	wantReference(t, "03-bob-conflict.json", code, 409, body)

	code, _, body = ts.do(t, "PATCH", path+"?fieldManager=carol", applyYAML,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  labels:\n    owner: carol\ndata:\n  b: \"carol\"\n", curl...)
	wantReference(t, "04-carol-conflict.json", code, 409, body)

	code, _, body = ts.do(t, "PATCH", path+"?fieldManager=bob&force=true", applyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: \"bob\"\n", curl...)
	wantReference(t, "05-bob-force.json", code, 200, body)

	code, _, body = ts.do(t, "PATCH", path+"?fieldManager=alice", applyYAML,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  labels:\n    owner: alice\ndata: {}\n", curl...)
	wantReference(t, "06-alice-conflict.json", code, 409, body)

	code, _, body = ts.do(t, "PATCH", path+"?fieldManager=alice", applyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n", curl...)
	wantReference(t, "07-alice-removes.json", code, 200, body)

	code, _, body = ts.do(t, "PATCH", path, applyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n", curl...)
	wantReference(t, "08-no-fieldmanager.json", code, 422, body)

	code, _, body = ts.do(t, "PATCH", path+"?fieldManager=alice", applyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other-name\n", curl...)
	wantReference(t, "09-name-mismatch.json", code, 400, body)
}
