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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
}

// printerFor picks the printer for a single object of a served kind.
func printerFor(obj runtime.Object) (printer, bool) {
	switch obj.(type) {
	case *corev1.Namespace:
		return printer{namespaceColumns, namespaceCells}, true
	case *corev1.Node:
		return printer{nodeColumns, nodeCells}, true
	case *corev1.Pod:
		return printer{podColumns, podCells}, true
	case *corev1.Event:
		return printer{eventColumns, eventCells}, true
	case *appsv1.ReplicaSet:
		return printer{replicaSetColumns, replicaSetCells}, true
	case *appsv1.Deployment:
		return printer{deploymentColumns, deploymentCells}, true
	}
	return printer{}, false
}

// Table returns the Table for obj, a single typed object (*appsv1.Deployment)
// or a typed list (*appsv1.DeploymentList), with every column including the
// wide (priority 1) ones. Each row's Object holds the item itself; the
// caller replaces it according to includeObject. now is the time ages are
// measured against.
func Table(obj runtime.Object, now time.Time) (*metav1.Table, error) {
	table := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}}
	if meta.IsListType(obj) {
		return listTable(table, obj, now)
	}
	p, ok := printerFor(obj)
	if !ok {
		return nil, fmt.Errorf("printers: no table for %T", obj)
	}
	row, err := tableRow(p, obj, now)
	if err != nil {
		return nil, err
	}
	if m, err := meta.Accessor(obj); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
	}
	table.ColumnDefinitions = p.columns
	table.Rows = []metav1.TableRow{row}
	return table, nil
}

// listTable renders a typed list: one row per item in list order, and the
// list's resourceVersion and continue token on the Table.
func listTable(table *metav1.Table, list runtime.Object, now time.Time) (*metav1.Table, error) {
	p, ok := printerFor(itemOf(list))
	if !ok {
		return nil, fmt.Errorf("printers: no table for %T", list)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("printers: %T: %w", list, err)
	}
	if lm, err := meta.ListAccessor(list); err == nil {
		table.ResourceVersion = lm.GetResourceVersion()
		table.Continue = lm.GetContinue()
		table.RemainingItemCount = lm.GetRemainingItemCount()
	}
	table.ColumnDefinitions = p.columns
	table.Rows = make([]metav1.TableRow, 0, len(items))
	for _, item := range items {
		row, err := tableRow(p, item, now)
		if err != nil {
			return nil, err
		}
		table.Rows = append(table.Rows, row)
	}
	return table, nil
}

// itemOf returns an empty item of a typed list's kind, so that an empty
// list still gets its kind's columns.
func itemOf(list runtime.Object) runtime.Object {
	switch list.(type) {
	case *corev1.NamespaceList:
		return &corev1.Namespace{}
	case *corev1.NodeList:
		return &corev1.Node{}
	case *corev1.PodList:
		return &corev1.Pod{}
	case *corev1.EventList:
		return &corev1.Event{}
	case *appsv1.ReplicaSetList:
		return &appsv1.ReplicaSet{}
	case *appsv1.DeploymentList:
		return &appsv1.Deployment{}
	}
	return list
}

func tableRow(p printer, obj runtime.Object, now time.Time) (metav1.TableRow, error) {
	cells, err := p.cells(obj, now)
	if err != nil {
		return metav1.TableRow{}, err
	}
	row := metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: obj}}
	if pod, ok := obj.(*corev1.Pod); ok {
		row.Conditions = podRowConditions(pod)
	}
	return row, nil
}
