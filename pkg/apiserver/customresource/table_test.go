package customresource

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

var now = time.Date(2026, 12, 1, 8, 50, 0, 0, time.UTC)

// widgetColumns are the additionalPrinterColumns of widgets.example.com in
// the reference (kinds-crd-ssa-1.37.md, section 23).
var widgetColumns = []apiextensionsv1.CustomResourceColumnDefinition{
	{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
	{Name: "Color", Type: "string", JSONPath: ".spec.color"},
}

func widget(name string, spec map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata": map[string]interface{}{
			"name": name, "namespace": "default", "resourceVersion": "593",
			"creationTimestamp": now.Add(-5 * time.Minute).Format(time.RFC3339),
		},
		"spec": spec,
	}}
}

func mustRender(t *testing.T, columns []apiextensionsv1.CustomResourceColumnDefinition, obj runtime.Object) *metav1.Table {
	t.Helper()
	f, err := Table(columns)
	if err != nil {
		t.Fatalf("Table: %v", err)
	}
	table, err := f(obj, now)
	if err != nil {
		t.Fatalf("TableFunc(%T): %v", obj, err)
	}
	return table
}

// recordedLines renders table as the reference's jq filter printed it:
// the head, each column definition with its description cut to 60
// characters, and each row's cells, one JSON document a line.
func recordedLines(t *testing.T, table *metav1.Table) []string {
	t.Helper()
	b, err := json.Marshal(table)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Kind              string                         `json:"kind"`
		APIVersion        string                         `json:"apiVersion"`
		Metadata          json.RawMessage                `json:"metadata"`
		ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
		Rows              []struct {
			Cells json.RawMessage `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		t.Fatal(err)
	}
	line := func(v interface{}) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lines := []string{line(struct {
		Kind       string          `json:"kind"`
		APIVersion string          `json:"apiVersion"`
		Metadata   json.RawMessage `json:"metadata"`
	}{wire.Kind, wire.APIVersion, wire.Metadata})}
	for _, c := range wire.ColumnDefinitions {
		if desc := []rune(c.Description); len(desc) > 60 {
			c.Description = string(desc[:60]) + "…"
		}
		lines = append(lines, line(c))
	}
	for _, r := range wire.Rows {
		lines = append(lines, `{"cells":`+string(r.Cells)+`}`)
	}
	return lines
}

// TestWidgetTableMatchesRecorded compares with the bytes kube-apiserver
// 1.37 answered for a Table of widgets (section 23, "### Table output").
func TestWidgetTableMatchesRecorded(t *testing.T) {
	table := mustRender(t, widgetColumns, widget("w-u2", map[string]interface{}{"size": int64(1), "color": "red"}))
	want := []string{
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"593"}}`,
		`{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace. Is required when cre…","priority":0}`,
		`{"name":"Size","type":"integer","format":"","description":"Custom resource definition column (in JSONPath format): .spe…","priority":0}`,
		`{"name":"Color","type":"string","format":"","description":"Custom resource definition column (in JSONPath format): .spe…","priority":0}`,
		`{"cells":["w-u2",1,"red"]}`,
	}
	if got := recordedLines(t, table); !reflect.DeepEqual(got, want) {
		t.Errorf("table =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, c := range table.ColumnDefinitions[1:] {
		if want := "Custom resource definition column (in JSONPath format): " + widgetColumns[i].JSONPath; c.Description != want {
			t.Errorf("column %s description = %q, want %q", c.Name, c.Description, want)
		}
	}
}

// TestWidgetListRows is `kubectl get widgets` of the reference: one row
// per item, in order, each holding its item.
func TestWidgetListRows(t *testing.T) {
	list := &unstructured.UnstructuredList{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": "WidgetList"}}
	list.SetResourceVersion("600")
	list.SetContinue("next")
	remaining := int64(3)
	list.SetRemainingItemCount(&remaining)
	for _, w := range []struct {
		name, color string
		size        int64
	}{{"w-u2", "red", 1}, {"w-u4", "red", 1}, {"w1", "blue", 1}, {"w2", "red", 7}} {
		list.Items = append(list.Items, *widget(w.name, map[string]interface{}{"size": w.size, "color": w.color}))
	}
	table := mustRender(t, widgetColumns, list)
	want := []string{`["w-u2",1,"red"]`, `["w-u4",1,"red"]`, `["w1",1,"blue"]`, `["w2",7,"red"]`}
	if len(table.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(table.Rows), len(want))
	}
	for i, row := range table.Rows {
		if got := cellsJSON(t, row); got != want[i] {
			t.Errorf("row %d cells = %s, want %s", i, got, want[i])
		}
		if row.Object.Object != &list.Items[i] {
			t.Errorf("row %d Object = %p, want the item %p", i, row.Object.Object, &list.Items[i])
		}
	}
	if table.ResourceVersion != "600" || table.Continue != "next" || table.RemainingItemCount == nil || *table.RemainingItemCount != 3 {
		t.Errorf("list metadata = %+v", table.ListMeta)
	}
}

func TestEmptyListHasNoRows(t *testing.T) {
	table := mustRender(t, widgetColumns, &unstructured.UnstructuredList{})
	b, err := json.Marshal(table)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"rows":[]`) {
		t.Errorf("empty list table = %s, want rows []", b)
	}
}

func TestSingleObjectRowHoldsIt(t *testing.T) {
	w := widget("w2", map[string]interface{}{"size": int64(7), "color": "red"})
	table := mustRender(t, widgetColumns, w)
	if len(table.Rows) != 1 || table.Rows[0].Object.Object != w {
		t.Fatalf("rows = %+v, want one row holding the object", table.Rows)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["w2",7,"red"]` {
		t.Errorf("cells = %s", got)
	}
}

// TestNoColumnsIsNameAndAge is the gadgets of the reference: a version
// without additionalPrinterColumns shows NAME and AGE.
func TestNoColumnsIsNameAndAge(t *testing.T) {
	gadget := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Gadget",
		"metadata": map[string]interface{}{"name": "g1", "creationTimestamp": "2026-12-01T08:48:54Z"},
		"spec":     map[string]interface{}{"anything": "goes"},
	}}
	f, err := Table(nil)
	if err != nil {
		t.Fatal(err)
	}
	wantColumns := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Age", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	}
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 12, 1, 8, 48, 54, 0, time.UTC), `["g1","0s"]`},
		{time.Date(2026, 12, 1, 8, 48, 55, 0, time.UTC), `["g1","1s"]`},
		{time.Date(2026, 12, 1, 8, 53, 54, 0, time.UTC), `["g1","5m"]`},
		{time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC), `["g1","2d"]`},
	} {
		table, err := f(gadget, tc.now)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(table.ColumnDefinitions, wantColumns) {
			t.Errorf("columns = %+v\nwant %+v", table.ColumnDefinitions, wantColumns)
		}
		if got := cellsJSON(t, table.Rows[0]); got != tc.want {
			t.Errorf("at %s cells = %s, want %s", tc.now, got, tc.want)
		}
	}
}

// TestCellTypes checks each column type against values of every JSON
// kind, as kube-apiserver's table convertor renders them: a value of
// another type is a null cell, except in a string column, which prints
// any value.
func TestCellTypes(t *testing.T) {
	spec := map[string]interface{}{
		"str":   "red",
		"int":   int64(7),
		"float": 1.9,
		"num":   json.Number("12"),
		"bool":  true,
		"null":  nil,
		"map":   map[string]interface{}{"a": "b", "c": int64(1)},
		"list":  []interface{}{"x", int64(2)},
		"date":  now.Add(-5 * time.Minute).Format(time.RFC3339),
		"empty": "",
		"junk":  "yesterday",
		"later": now.Add(time.Hour).Format(time.RFC3339),
	}
	for _, tc := range []struct {
		typ, path string
		want      interface{}
	}{
		{"integer", ".spec.int", int64(7)},
		{"integer", ".spec.float", int64(1)},
		{"integer", ".spec.num", int64(12)},
		{"integer", ".spec.str", nil},
		{"integer", ".spec.bool", nil},
		{"integer", ".spec.missing", nil},
		{"integer", ".spec.null", nil},
		{"integer", ".spec.list[1]", int64(2)},
		{"number", ".spec.int", float64(7)},
		{"number", ".spec.float", 1.9},
		{"number", ".spec.num", float64(12)},
		{"number", ".spec.str", nil},
		{"boolean", ".spec.bool", true},
		{"boolean", ".spec.str", nil},
		{"boolean", ".spec.int", nil},
		{"string", ".spec.str", "red"},
		{"string", ".spec.int", "7"},
		{"string", ".spec.float", "1.9"},
		{"string", ".spec.bool", "true"},
		{"string", ".spec.map", `{"a":"b","c":1}`},
		{"string", ".spec.list", `["x",2]`},
		{"string", ".spec.list[0]", "x"},
		{"string", ".spec.missing", nil},
		{"string", ".spec.null", "<no value>"},
		{"string", ".spec.empty", ""},
		{"date", ".spec.date", "5m"},
		{"date", ".metadata.creationTimestamp", "5m"},
		{"date", ".spec.empty", "<unknown>"},
		{"date", ".spec.junk", "<invalid>"},
		{"date", ".spec.later", "<invalid>"},
		{"date", ".spec.int", nil},
		{"date", ".spec.missing", nil},
	} {
		t.Run(tc.typ+tc.path, func(t *testing.T) {
			table := mustRender(t, []apiextensionsv1.CustomResourceColumnDefinition{{Name: "C", Type: tc.typ, JSONPath: tc.path}}, widget("w", spec))
			if got := table.Rows[0].Cells[1]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("cell = %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestColumnDefinitionCarriesEveryField(t *testing.T) {
	table := mustRender(t, []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Phase", Type: "string", Format: "byte", Description: "The phase.", Priority: 1, JSONPath: ".status.phase"},
	}, widget("w", nil))
	want := metav1.TableColumnDefinition{Name: "Phase", Type: "string", Format: "byte", Description: "The phase.", Priority: 1}
	if got := table.ColumnDefinitions[1]; got != want {
		t.Errorf("column = %+v, want %+v", got, want)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["w",null]` {
		t.Errorf("cells = %s, want a null cell for a missing value", got)
	}
}

func TestTableRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		col  apiextensionsv1.CustomResourceColumnDefinition
	}{
		{"unknown type", apiextensionsv1.CustomResourceColumnDefinition{Name: "X", Type: "object", JSONPath: ".spec"}},
		{"empty type", apiextensionsv1.CustomResourceColumnDefinition{Name: "X", JSONPath: ".spec"}},
		{"unclosed bracket", apiextensionsv1.CustomResourceColumnDefinition{Name: "X", Type: "string", JSONPath: ".spec.items["}},
		{"unclosed filter", apiextensionsv1.CustomResourceColumnDefinition{Name: "X", Type: "string", JSONPath: ".spec[?(@.a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Table([]apiextensionsv1.CustomResourceColumnDefinition{widgetColumns[0], tc.col}); err == nil {
				t.Errorf("Table(%+v) = nil error", tc.col)
			}
		})
	}
}

func TestTableFuncRejectsTypedObjects(t *testing.T) {
	f, err := Table(widgetColumns)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f(&metav1.Status{}, now); err == nil {
		t.Error("TableFunc(*metav1.Status) = nil error")
	}
}

// TestConcurrentRenders runs one TableFunc from several goroutines (the
// race detector checks the shared paths), with a range path whose walk
// keeps state in the JSONPath.
func TestConcurrentRenders(t *testing.T) {
	f, err := Table([]apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
		{Name: "Names", Type: "string", JSONPath: ".spec.items}{range .spec.items[*]}{.n}{end"},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := widget("w", map[string]interface{}{"size": int64(3), "items": []interface{}{map[string]interface{}{"n": "a"}}})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				table, err := f(w, now)
				if err != nil {
					t.Error(err)
					return
				}
				if got := table.Rows[0].Cells[1]; got != int64(3) {
					t.Errorf("size cell = %#v", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

// cellsJSON is a row's cells as they go on the wire, so that integer and
// string cells are told apart.
func cellsJSON(t *testing.T, row metav1.TableRow) string {
	t.Helper()
	b, err := json.Marshal(row.Cells)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
