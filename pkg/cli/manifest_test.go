package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const twoDocs = `apiVersion: v1
kind: Namespace
metadata:
  name: a
---
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
`

func TestReadManifestsMultiDocAndStdin(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "two.yaml", twoDocs)
	set, err := readManifests([]string{f, "-"}, false, strings.NewReader(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Errs) != 0 {
		t.Fatalf("errors: %v", set.Errs)
	}
	var got []string
	for _, d := range set.Docs {
		got = append(got, d.Source+":"+d.Obj.GetKind()+"/"+d.Obj.GetName())
	}
	want := []string{f + ":Namespace/a", f + ":Deployment/web", "STDIN:Namespace/b"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestReadManifestsDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "b.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n")
	writeFile(t, dir, "a.json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}`)
	writeFile(t, dir, "notes.txt", "not a manifest")
	writeFile(t, dir, "sub/c.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: c}\n")
	for _, tc := range []struct {
		recursive bool
		want      string
	}{{false, "a,b"}, {true, "a,b,c"}} {
		set, err := readManifests([]string{dir}, tc.recursive, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range set.Docs {
			names = append(names, d.Obj.GetName())
		}
		if got := strings.Join(names, ","); got != tc.want {
			t.Errorf("recursive=%v: got %s, want %s", tc.recursive, got, tc.want)
		}
	}
}

func TestReadManifestsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\n spec: [\n")
	if _, err := readManifests([]string{filepath.Join(dir, "nope.yaml")}, false, nil); err == nil ||
		err.Error() != `the path "`+filepath.Join(dir, "nope.yaml")+`" does not exist` {
		t.Fatalf("missing file: got %v", err)
	}
	set, err := readManifests([]string{bad}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "error parsing " + bad + ": error converting YAML to JSON: yaml: line 4: did not find expected key"
	if len(set.Errs) != 1 || set.Errs[0].Error() != want {
		t.Fatalf("got %v, want %q", set.Errs, want)
	}
	noKind := writeFile(t, dir, "nokind.yaml", "metadata:\n  name: x\n")
	set, _ = readManifests([]string{noKind}, false, nil)
	if len(set.Errs) != 1 || !strings.Contains(set.Errs[0].Error(), "[apiVersion not set, kind not set]") {
		t.Fatalf("no kind: got %v", set.Errs)
	}
}

func TestReadManifestsFlattensLists(t *testing.T) {
	list := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}},{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"y"}}]}`
	docs, err := decodeManifestStream(strings.NewReader(list), "f")
	if err != nil || len(docs) != 2 || docs[1].Obj.GetName() != "y" {
		t.Fatalf("got %v %v", docs, err)
	}
}
