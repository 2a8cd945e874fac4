package cli

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/printers"
)

// deployTable is a server Table like miniapi's for one deployment.
func deployTable(t *testing.T, name, ns string, labels map[string]string) *metav1.Table {
	t.Helper()
	md := map[string]any{"name": name, "namespace": ns, "resourceVersion": "7"}
	if labels != nil {
		md["labels"] = labels
	}
	raw, err := utiljson.Marshal(map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": md})
	if err != nil {
		t.Fatal(err)
	}
	t2 := &metav1.Table{
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name"},
			{Name: "Ready", Type: "string"},
			{Name: "Up-to-date", Type: "string"},
			{Name: "Available", Type: "string"},
			{Name: "Age", Type: "string"},
			{Name: "Containers", Type: "string", Priority: 1},
		},
		Rows: []metav1.TableRow{{
			Cells:  []any{name, "0/3", int64(3), int64(0), "2s", "nginx"},
			Object: runtime.RawExtension{Raw: raw},
		}},
	}
	decodeRowObjects(t2)
	return t2
}

func printOne(t *testing.T, opts printers.PrintOptions, tables ...*metav1.Table) string {
	t.Helper()
	var out bytes.Buffer
	w := printers.GetNewTabWriter(&out)
	p := printers.NewTablePrinter(opts)
	for _, tb := range tables {
		if err := p.PrintObj(tb, w); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return out.String()
}

func TestTablePrinterDefaultAndWide(t *testing.T) {
	got := printOne(t, printers.PrintOptions{}, deployTable(t, "web", "default", nil))
	want := "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    0/3     3            0           2s\n"
	if got != want {
		t.Errorf("default:\n%q\nwant\n%q", got, want)
	}
	got = printOne(t, printers.PrintOptions{Wide: true}, deployTable(t, "web", "default", nil))
	if !strings.HasPrefix(got, "NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS\n") || !strings.Contains(got, "2s    nginx\n") {
		t.Errorf("wide:\n%s", got)
	}
}

func TestTablePrinterHeaderOncePerColumnSet(t *testing.T) {
	second := deployTable(t, "api", "default", nil)
	second.ColumnDefinitions = nil // as in watch events after the first
	got := printOne(t, printers.PrintOptions{}, deployTable(t, "web", "default", nil), second)
	if strings.Count(got, "NAME") != 1 || !strings.Contains(got, "\napi ") {
		t.Errorf("got:\n%s", got)
	}
}

func TestTablePrinterDecorations(t *testing.T) {
	tb := deployTable(t, "web", "prod", map[string]string{"app": "web", "tier": "front"})
	got := printOne(t, printers.PrintOptions{
		WithNamespace: true, ShowLabels: true, ColumnLabels: []string{"example.com/tier", "missing"},
		WithKind: true, Kind: schema.GroupKind{Group: "apps", Kind: "Deployment"},
	}, tb)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 2 {
		t.Fatalf("got:\n%s", got)
	}
	h := strings.Fields(lines[0])
	wantH := []string{"NAMESPACE", "NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "TIER", "MISSING", "LABELS"}
	if strings.Join(h, " ") != strings.Join(wantH, " ") {
		t.Errorf("headers %v, want %v", h, wantH)
	}
	if !strings.HasPrefix(lines[1], "prod        deployment.apps/web   ") || !strings.HasSuffix(lines[1], "app=web,tier=front") {
		t.Errorf("row %q", lines[1])
	}
}

func TestTablePrinterEmptyTablePrintsNothing(t *testing.T) {
	tb := deployTable(t, "web", "default", nil)
	tb.Rows = nil
	if got := printOne(t, printers.PrintOptions{}, tb); got != "" {
		t.Errorf("got %q", got)
	}
}

func TestTablePrinterEventColumnAndCells(t *testing.T) {
	tb := deployTable(t, "web", "default", nil)
	tb.Rows[0].Cells[1] = "line1\nline2"
	var out bytes.Buffer
	w := printers.GetNewTabWriter(&out)
	if err := printers.NewTablePrinter(printers.PrintOptions{}).PrintObj(asWatchEvent("ADDED", tb), w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if !strings.HasPrefix(out.String(), "EVENT      NAME") || !strings.Contains(out.String(), "ADDED      web    line1...") {
		t.Errorf("got:\n%s", out.String())
	}
}

func sampleDeployment() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "default", "generation": int64(2)},
		"spec":     map[string]any{"replicas": int64(5)},
		"status":   map[string]any{"observedGeneration": int64(2)},
	}
}

func printGen(t *testing.T, output string, obj map[string]any) (string, error) {
	t.Helper()
	p, err := newObjectPrinter(output, false)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	w := printers.GetNewTabWriter(&out)
	err = p.PrintObj(asObject(obj), w)
	w.Flush()
	return out.String(), err
}

func TestObjectPrinters(t *testing.T) {
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web-x"}}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{sampleDeployment(), pod}, "metadata": map[string]any{"resourceVersion": ""}}
	cases := []struct {
		output string
		obj    map[string]any
		want   string
	}{
		{"name", list, "deployment.apps/web\npod/web-x\n"},
		{"jsonpath={.metadata.generation} {.status.observedGeneration}", sampleDeployment(), "2 2"},
		{`jsonpath={.metadata.name}{"\n"}`, sampleDeployment(), "web\n"},
		{"jsonpath={.status.missing}", sampleDeployment(), ""},
		{`jsonpath={range .items[*]}{.metadata.name}{"\n"}{end}`, list, "web\nweb-x\n"},
		{"custom-columns=NAME:.metadata.name,GEN:metadata.generation,READY:{.status.readyReplicas}", sampleDeployment(),
			"NAME   GEN   READY\nweb    2     <none>\n"},
		{"custom-columns=NAME:.metadata.name", list, "NAME\nweb\nweb-x\n"},
		{"json", pod, "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"metadata\": {\n        \"name\": \"web-x\"\n    }\n}\n"},
		{"yaml", pod, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-x\n"},
	}
	for _, c := range cases {
		got, err := printGen(t, c.output, c.obj)
		if err != nil {
			t.Errorf("-o %s: %v", c.output, err)
			continue
		}
		if got != c.want {
			t.Errorf("-o %s:\ngot  %q\nwant %q", c.output, got, c.want)
		}
	}
}

func TestObjectPrinterErrors(t *testing.T) {
	cases := map[string]string{
		"jsonpath={.metadata.name":   "error parsing jsonpath {.metadata.name, unclosed action",
		"jsonpath=":                  "template format specified but no template given",
		"custom-columns=NAME":        "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>",
		"custom-columns=":            "custom-columns format specified but no custom columns given",
		"custom-columns=A:{.a}{.b}":  "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
		"foo":                        `unable to match a printer suitable for the output format "foo", allowed formats are: custom-columns,custom-columns-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,wide,yaml`,
		"jsonpath-file=/nonexistent": "error reading --template /nonexistent, open /nonexistent: no such file or directory",
	}
	for output, want := range cases {
		_, err := newObjectPrinter(output, false)
		if err == nil || err.Error() != want {
			t.Errorf("-o %s: got %v, want %q", output, err, want)
		}
	}
}

func TestYAMLPrinterSeparatesDocuments(t *testing.T) {
	p, _ := newObjectPrinter("yaml", false)
	var out bytes.Buffer
	p.PrintObj(asObject(map[string]any{"kind": "A", "a": int64(1)}), &out)
	p.PrintObj(asObject(map[string]any{"kind": "A", "a": int64(2)}), &out)
	if out.String() != "a: 1\nkind: A\n---\na: 2\nkind: A\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestSortObjectsBytewiseQuantityAndNumeric(t *testing.T) {
	mk := func(name string, n int64) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": name}, "spec": map[string]any{"replicas": n}}
	}
	objs := []map[string]any{mk("pod-10", 1), mk("pod-2", 30), mk("pod-1", 2)}
	if err := sortObjects(objs, ".metadata.name"); err != nil {
		t.Fatal(err)
	}
	if got := []string{metaString(objs[0], "name"), metaString(objs[1], "name"), metaString(objs[2], "name")}; strings.Join(got, ",") != "pod-1,pod-10,pod-2" {
		t.Errorf("by name (byte-wise, as kubectl 1.37): %v", got)
	}
	if !lessValue("500m", "2") || lessValue("2Gi", "900Mi") || !lessValue("web-957gz", "web-99kp9") {
		t.Error("quantities compare by value, other strings byte-wise")
	}
	if err := sortObjects(objs, "{.spec.replicas}"); err != nil {
		t.Fatal(err)
	}
	if metaString(objs[0], "name") != "pod-10" || metaString(objs[2], "name") != "pod-2" {
		t.Errorf("by replicas: %v", objs)
	}
}

func TestRelaxedJSONPathExpression(t *testing.T) {
	for in, want := range map[string]string{"a.b": "{.a.b}", ".a.b": "{.a.b}", "{a.b}": "{.a.b}", "{.a.b}": "{.a.b}"} {
		got, err := relaxedJSONPathExpression(in)
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v", in, got, err)
		}
	}
}

func TestWatchEventsPrintAsKubectl(t *testing.T) {
	pod := asObject(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web-x"}})
	var out bytes.Buffer
	if err := (&printers.JSONPrinter{}).PrintObj(asWatchEvent("ADDED", pod), &out); err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-x"}}}` + "\n"; out.String() != want {
		t.Errorf("json event:\ngot  %q\nwant %q", out.String(), want)
	}
	out.Reset()
	p := &printers.YAMLPrinter{}
	for _, typ := range []string{"ADDED", "MODIFIED"} {
		if err := p.PrintObj(asWatchEvent(typ, pod), &out); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Count(out.String(), "---\n") != 1 || !strings.HasSuffix(out.String(), "type: MODIFIED\n") {
		t.Errorf("yaml events, separated as documents:\n%s", out.String())
	}
	if asWatchEvent("", pod) != pod {
		t.Error("without --output-watch-events the object prints as itself")
	}
}

func TestManagedFieldsOmittedByJSONAndYAMLOnly(t *testing.T) {
	obj := func() map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "c", "managedFields": []any{map[string]any{"manager": "m"}}}}
	}
	cases := map[string]bool{"yaml": false, "json": false, "jsonpath={.metadata.managedFields[0].manager}": true}
	for output, kept := range cases {
		p, err := newObjectPrinter(output, false)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := omitManagedFields(output, false, p).PrintObj(asObject(obj()), &out); err != nil {
			t.Fatal(err)
		}
		printed := func() bool { return out.String() == "m" || strings.Contains(out.String(), "managedFields") }
		if got := printed(); got != kept {
			t.Errorf("-o %s: manager printed=%v, want %v:\n%s", output, got, kept, out.String())
		}
		out.Reset()
		if err := omitManagedFields(output, true, p).PrintObj(asObject(obj()), &out); err != nil || !printed() {
			t.Errorf("-o %s --show-managed-fields: %v\n%s", output, err, out.String())
		}
	}
}

// TestJSONPathPanicIsAnError: a template that parses but makes client-go's
// evaluation panic (kubectl crashes on it) gives kubectl's error for a
// template that fails to execute.
func TestJSONPathPanicIsAnError(t *testing.T) {
	_, err := printGen(t, "jsonpath={range.}{[]0}", sampleDeployment())
	want := `error executing jsonpath "{range.}{[]0}": Error executing template: reflect: call of reflect.Value.Type on zero Value` + "\n"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
