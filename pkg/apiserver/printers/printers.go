// Package printers turns objects into the server-side Tables kubectl
// prints, with kube-apiserver's columns for each kind.
//
// The server always renders every column, the wide (priority 1) ones
// included, as kube-apiserver does: kubectl hides priority-1 columns unless
// it was asked for -o wide. Cell types follow kube-apiserver exactly, even
// where they disagree with the column's declared type (a Deployment's
// UP-TO-DATE and AVAILABLE cells are integers in a "string" column).
package printers

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// rowFunc renders the cells of one object's row.
type rowFunc func(obj runtime.Object, now time.Time) ([]interface{}, error)

// printer is one kind's columns and the function that fills them.
type printer struct {
	columns []metav1.TableColumnDefinition
	cells   rowFunc
	// conditions marks a row (finished pods); nil for most kinds.
	conditions func(obj runtime.Object) []metav1.TableRowCondition
}

// The Tables of the built-in kinds, each a registry.TableFunc: obj is a
// single typed object (*appsv1.Deployment) or a typed list
// (*appsv1.DeploymentList), and every column is rendered, the wide
// (priority 1) ones included. Each row's Object holds the item itself; the
// caller replaces it according to includeObject. now is the time ages are
// measured against.
var (
	Namespaces  = printer{columns: namespaceColumns, cells: namespaceCells}.table
	Nodes       = printer{columns: nodeColumns, cells: nodeCells}.table
	Pods        = printer{columns: podColumns, cells: podCells, conditions: podRowConditions}.table
	Events      = printer{columns: eventColumns, cells: eventCells}.table
	ReplicaSets = printer{columns: replicaSetColumns, cells: replicaSetCells}.table
	Deployments = printer{columns: deploymentColumns, cells: deploymentCells}.table
)

// table renders obj, a single object or a list, with p's columns.
func (p printer) table(obj runtime.Object, now time.Time) (*metav1.Table, error) {
	table := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}, ColumnDefinitions: p.columns}
	if !meta.IsListType(obj) {
		row, err := p.row(obj, now)
		if err != nil {
			return nil, err
		}
		if m, err := meta.Accessor(obj); err == nil {
			table.ResourceVersion = m.GetResourceVersion()
		}
		table.Rows = []metav1.TableRow{row}
		return table, nil
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, fmt.Errorf("printers: %T: %w", obj, err)
	}
	if lm, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion = lm.GetResourceVersion()
		table.Continue = lm.GetContinue()
		table.RemainingItemCount = lm.GetRemainingItemCount()
	}
	table.Rows = make([]metav1.TableRow, 0, len(items))
	for _, item := range items {
		row, err := p.row(item, now)
		if err != nil {
			return nil, err
		}
		table.Rows = append(table.Rows, row)
	}
	return table, nil
}

func (p printer) row(obj runtime.Object, now time.Time) (metav1.TableRow, error) {
	cells, err := p.cells(obj, now)
	if err != nil {
		return metav1.TableRow{}, err
	}
	row := metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: obj}}
	if p.conditions != nil {
		row.Conditions = p.conditions(obj)
	}
	return row, nil
}

// Default is kube-apiserver's Table for a kind without columns of its own:
// the name and the creation time.
var Default = printer{columns: defaultColumns, cells: defaultCells}.table

var defaultColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Created At", "date", ageDoc, 0),
}

func defaultCells(obj runtime.Object, _ time.Time) ([]interface{}, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	return []interface{}{m.GetName(), m.GetCreationTimestamp().UTC().Format(time.RFC3339)}, nil
}
