// Package customresource holds the parts of a custom resource's registry
// entry that its CustomResourceDefinition decides: the server-side Table
// built from a version's additionalPrinterColumns and the field set its
// selectableFields add to field selectors.
package customresource

import (
	"encoding/json"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// columnTypes are the printer column types a CRD may declare.
var columnTypes = map[string]bool{"integer": true, "number": true, "boolean": true, "string": true, "date": true}

// ageColumn is the column kube-apiserver serves for a version that
// declares no additionalPrinterColumns.
func ageColumn() apiextensionsv1.CustomResourceColumnDefinition {
	return apiextensionsv1.CustomResourceColumnDefinition{
		Name:        "Age",
		Type:        "date",
		Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"],
		JSONPath:    ".metadata.creationTimestamp",
	}
}

// column is one printer column, ready to evaluate.
type column struct {
	typ  string
	path *fieldPath
}

// crTable is the Table of one version of a custom resource.
type crTable struct {
	definitions []metav1.TableColumnDefinition // Name, then one per column
	columns     []column
}

// Table is the TableFunc of a custom resource version whose
// additionalPrinterColumns are columns: the Name column, then each of
// columns (or Age, when there are none), as kube-apiserver serves it. The
// TableFunc takes an *unstructured.Unstructured or an
// *unstructured.UnstructuredList. A column of an unknown type or with a
// jsonPath that does not parse is an error; the CRD validation rejects
// both before a CRD gets here.
func Table(columns []apiextensionsv1.CustomResourceColumnDefinition) (registry.TableFunc, error) {
	if len(columns) == 0 {
		columns = []apiextensionsv1.CustomResourceColumnDefinition{ageColumn()}
	}
	t := &crTable{definitions: []metav1.TableColumnDefinition{{
		Name:        "Name",
		Type:        "string",
		Format:      "name",
		Description: metav1.ObjectMeta{}.SwaggerDoc()["name"],
	}}}
	for _, c := range columns {
		if !columnTypes[c.Type] {
			return nil, fmt.Errorf("printer column %q: unknown type %q", c.Name, c.Type)
		}
		path, err := compilePath(c.Name, c.JSONPath)
		if err != nil {
			return nil, fmt.Errorf("printer column %q: %w", c.Name, err)
		}
		description := c.Description
		if description == "" {
			description = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		t.definitions = append(t.definitions, metav1.TableColumnDefinition{
			Name:        c.Name,
			Type:        c.Type,
			Format:      c.Format,
			Description: description,
			Priority:    c.Priority,
		})
		t.columns = append(t.columns, column{typ: c.Type, path: path})
	}
	return t.render, nil
}

// render is the TableFunc.
func (t *crTable) render(obj runtime.Object, now time.Time) (*metav1.Table, error) {
	table := &metav1.Table{
		TypeMeta:          metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ColumnDefinitions: t.definitions,
	}
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		table.ResourceVersion = o.GetResourceVersion()
		table.Rows = []metav1.TableRow{t.row(o, now)}
	case *unstructured.UnstructuredList:
		table.ResourceVersion = o.GetResourceVersion()
		table.Continue = o.GetContinue()
		table.RemainingItemCount = o.GetRemainingItemCount()
		table.Rows = make([]metav1.TableRow, 0, len(o.Items))
		for i := range o.Items {
			table.Rows = append(table.Rows, t.row(&o.Items[i], now))
		}
	default:
		return nil, fmt.Errorf("customresource: no table for %T", obj)
	}
	return table, nil
}

// row is item's row. A value a column's path does not find, or cannot
// show as the column's type, is a null cell (kubectl prints "<none>").
func (t *crTable) row(item *unstructured.Unstructured, now time.Time) metav1.TableRow {
	cells := make([]interface{}, 0, 1+len(t.columns))
	cells = append(cells, item.GetName())
	for _, c := range t.columns {
		cells = append(cells, c.cell(item.Object, now))
	}
	return metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: item}}
}

// cell is the column's cell for an object's content.
func (c column) cell(content map[string]interface{}, now time.Time) interface{} {
	value, found, _ := c.path.first(content)
	if !found {
		return nil
	}
	if c.typ == "string" {
		// A string column shows any value, printed as jsonpath prints it.
		s, err := c.path.text(value)
		if err != nil {
			return nil
		}
		return s
	}
	return typedCell(c.typ, value, now)
}

// typedCell is value as a cell of a column of type typ (other than
// string), or nil when value is not of that type.
func typedCell(typ string, value interface{}, now time.Time) interface{} {
	switch typ {
	case "integer":
		switch v := value.(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		case json.Number:
			if i, err := v.Int64(); err == nil {
				return i
			}
		}
	case "number":
		switch v := value.(type) {
		case int64:
			return float64(v)
		case float64:
			return v
		case json.Number:
			if f, err := v.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return b
		}
	case "date":
		if s, ok := value.(string); ok {
			return age(s, now)
		}
	}
	return nil
}

// age is the time from an RFC 3339 timestamp to now, as kubectl shows
// ages ("5m"); "<unknown>" for an empty timestamp and "<invalid>" for one
// that does not parse.
func age(timestamp string, now time.Time) string {
	var t metav1.Time
	if err := t.UnmarshalQueryParameter(timestamp); err != nil {
		return "<invalid>"
	}
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}
