package cli

import (
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// tableOptions are kubectl's human-readable print options.
type tableOptions struct {
	NoHeaders     bool
	Wide          bool
	WithNamespace bool
	WithKind      bool
	Kind          schema.GroupKind
	ShowLabels    bool
	ColumnLabels  []string
	// EventColumn, when set, is printed first under the header EVENT
	// (--output-watch-events).
	EventColumn bool
}

// tablePrinter prints server-side Tables as kubectl does: it prints the
// header once per set of column definitions, reuses the last definitions
// for watch events that carry none, and adds the NAMESPACE, LABELS and -L
// columns on the client.
type tablePrinter struct {
	opts           tableOptions
	lastColumns    []metav1.TableColumnDefinition
	printedHeaders bool
}

func newTablePrinter(opts tableOptions) *tablePrinter { return &tablePrinter{opts: opts} }

// Print writes table (which it may modify) to w, tab separated; w is
// normally a *tabWriter. event is the watch event type for the EVENT
// column, or "".
func (p *tablePrinter) Print(w io.Writer, table *metav1.Table, event string) error {
	opts := p.opts
	if p.printedHeaders && (len(table.ColumnDefinitions) == 0 || reflect.DeepEqual(table.ColumnDefinitions, p.lastColumns)) {
		opts.NoHeaders = true
	}
	if len(table.ColumnDefinitions) == 0 {
		table.ColumnDefinitions = p.lastColumns
	} else if !reflect.DeepEqual(table.ColumnDefinitions, p.lastColumns) {
		p.lastColumns = table.ColumnDefinitions
		p.printedHeaders = false
	}
	if len(table.Rows) > 0 {
		p.printedHeaders = true
	}
	columns, rows := decorateTable(table, opts, event)
	return printTableRows(w, columns, rows, opts)
}

// decorateTable returns the columns and row cells to print: the server's,
// with EVENT and NAMESPACE in front, -L and LABELS columns at the end, and
// "kind/name" names when several kinds are printed.
func decorateTable(table *metav1.Table, opts tableOptions, event string) ([]metav1.TableColumnDefinition, [][]any) {
	var columns []metav1.TableColumnDefinition
	if opts.EventColumn {
		columns = append(columns, metav1.TableColumnDefinition{Name: "Event", Type: "string"})
	}
	if opts.WithNamespace {
		columns = append(columns, metav1.TableColumnDefinition{Name: "Namespace", Type: "string"})
	}
	columns = append(columns, table.ColumnDefinitions...)
	for _, h := range labelColumnHeaders(opts.ColumnLabels) {
		columns = append(columns, metav1.TableColumnDefinition{Name: h, Type: "string"})
	}
	if opts.ShowLabels {
		columns = append(columns, metav1.TableColumnDefinition{Name: "Labels", Type: "string"})
	}
	nameColumn := -1
	if opts.WithKind && !opts.Kind.Empty() {
		for i, c := range table.ColumnDefinitions {
			if c.Format == "name" && c.Type == "string" {
				nameColumn = i
				break
			}
		}
	}
	rows := make([][]any, 0, len(table.Rows))
	for _, row := range table.Rows {
		cells := append([]any(nil), row.Cells...)
		if nameColumn >= 0 && nameColumn < len(cells) {
			cells[nameColumn] = fmt.Sprintf("%s/%s", strings.ToLower(opts.Kind.String()), cells[nameColumn])
		}
		meta := rowMetadata(row)
		var front []any
		if opts.EventColumn {
			front = append(front, formatEventType(event))
		}
		if opts.WithNamespace {
			front = append(front, meta.Namespace)
		}
		cells = append(front, cells...)
		for _, l := range opts.ColumnLabels {
			cells = append(cells, meta.Labels[l])
		}
		if opts.ShowLabels {
			cells = append(cells, labels.FormatLabels(meta.Labels))
		}
		rows = append(rows, cells)
	}
	return columns, rows
}

// rowMetadata reads the object metadata a Table row carries (a
// PartialObjectMetadata, or the full object with includeObject=Object).
func rowMetadata(row metav1.TableRow) metav1.ObjectMeta {
	var m metav1.ObjectMeta
	obj, ok := decodeRowObject(row)
	if !ok {
		return m
	}
	md, _ := obj["metadata"].(map[string]any)
	m.Name, _ = md["name"].(string)
	m.Namespace, _ = md["namespace"].(string)
	if ls, ok := md["labels"].(map[string]any); ok {
		m.Labels = map[string]string{}
		for k, v := range ls {
			m.Labels[k], _ = v.(string)
		}
	}
	return m
}

// labelColumnHeaders turns -L keys into headers: the part after the last
// "/", upper-cased.
func labelColumnHeaders(keys []string) []string {
	var out []string
	for _, k := range keys {
		parts := strings.Split(k, "/")
		out = append(out, strings.ToUpper(parts[len(parts)-1]))
	}
	return out
}

func printTableRows(w io.Writer, columns []metav1.TableColumnDefinition, rows [][]any, opts tableOptions) error {
	if !opts.NoHeaders {
		if len(rows) == 0 {
			return nil // no header for an empty table
		}
		var hs []string
		for _, c := range columns {
			if opts.Wide || c.Priority == 0 {
				hs = append(hs, strings.ToUpper(c.Name))
			}
		}
		fmt.Fprintln(w, strings.Join(hs, "\t"))
	}
	for _, cells := range rows {
		var out []string
		for i, cell := range cells {
			if i >= len(columns) {
				break // more cells than columns: ignore, as kubectl does
			}
			if !opts.Wide && columns[i].Priority != 0 {
				continue
			}
			out = append(out, cellString(cell))
		}
		fmt.Fprintln(w, strings.Join(out, "\t"))
	}
	return nil
}

// cellString renders one cell: strings are cut at the first line break
// (with "..." appended), other values printed with fmt, nil as "".
func cellString(cell any) string {
	switch v := cell.(type) {
	case nil:
		return ""
	case string:
		if i := strings.IndexAny(v, "\f\n\r"); i >= 0 {
			return escapeTerminal(v[:i]) + "..."
		}
		return escapeTerminal(v)
	default:
		return escapeTerminal(fmt.Sprint(v))
	}
}

// escapeTerminal keeps control characters (and tabs, which would break the
// layout) out of table cells.
func escapeTerminal(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			fmt.Fprintf(&b, "^%c", r^0x40)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sortTableRows orders the rows of table by the value of a jsonpath
// expression over each row's full object (requested with
// includeObject=Object).
func sortTableRows(table *metav1.Table, expr string) error {
	if len(table.Rows) < 2 {
		return nil
	}
	keys := make([]any, len(table.Rows))
	for i, row := range table.Rows {
		obj, _ := decodeRowObject(row)
		v, err := sortValue(obj, expr)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	idx := make([]int, len(table.Rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return lessValue(keys[idx[a]], keys[idx[b]]) })
	rows := make([]metav1.TableRow, len(idx))
	for i, j := range idx {
		rows[i] = table.Rows[j]
	}
	table.Rows = rows
	return nil
}

// formatEventType pads watch event types to one width, as kubectl does.
func formatEventType(t string) string {
	switch t {
	case "ADDED":
		return "ADDED   "
	case "DELETED":
		return "DELETED "
	case "ERROR":
		return "ERROR   "
	}
	return t
}
