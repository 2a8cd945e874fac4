package cli

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"
)

// sortValue evaluates a --sort-by expression ("{.metadata.name}" or
// ".metadata.name") on obj; a missing field sorts as nil (first).
func sortValue(obj map[string]any, expr string) (any, error) {
	rel, err := relaxedJSONPathExpression(expr)
	if err != nil {
		return nil, err
	}
	jp := jsonpath.New("sorting").AllowMissingKeys(true)
	if err := jp.Parse(rel); err != nil {
		return nil, fmt.Errorf("sorting error: %v", err)
	}
	if obj == nil {
		return nil, nil
	}
	res, err := jp.FindResults(obj)
	if err != nil || len(res) == 0 || len(res[0]) == 0 {
		return nil, err
	}
	return valueInterface(res[0][0]), nil
}

// sortObjects orders decoded objects by a --sort-by expression.
func sortObjects(objs []map[string]any, expr string) error {
	if len(objs) < 2 {
		return nil // nothing to sort: kubectl does not look at the expression
	}
	keys := make([]any, len(objs))
	found := false
	for i, o := range objs {
		v, err := sortValue(o, expr)
		if err != nil {
			return err
		}
		keys[i] = v
		found = found || v != nil
	}
	if !found {
		rel, _ := relaxedJSONPathExpression(expr)
		return fmt.Errorf("couldn't find any field with path %q in the list of objects", rel)
	}
	idx := make([]int, len(objs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return lessValue(keys[idx[a]], keys[idx[b]]) })
	sorted := make([]map[string]any, len(objs))
	for i, j := range idx {
		sorted[i] = objs[j]
	}
	copy(objs, sorted)
	return nil
}

// lessValue compares sort keys as kubectl 1.37 does: numbers numerically,
// strings byte-wise ("pod-10" before "pod-2") unless both are quantities
// ("500m" before "2"), missing values first.
func lessValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b != nil
	}
	fa, aNum := toFloat(a)
	fb, bNum := toFloat(b)
	if aNum && bNum {
		return fa < fb
	}
	sa, sb := fmt.Sprint(a), fmt.Sprint(b)
	qa, errA := resource.ParseQuantity(sa)
	qb, errB := resource.ParseQuantity(sb)
	if errA == nil && errB == nil {
		return qa.Cmp(qb) < 0
	}
	return sa < sb
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// rowObject is the object a Table row carries (decoded by decodeTable):
// its metadata, or the full object with includeObject=Object.
func rowObject(row metav1.TableRow) (map[string]any, bool) {
	u, ok := row.Object.Object.(runtime.Unstructured)
	if !ok {
		return nil, false
	}
	return u.UnstructuredContent(), true
}

// sortTableRows orders the rows of table by the value of a jsonpath
// expression over each row's full object (requested with
// includeObject=Object). kubectl keeps its sorter outside cli-runtime.
func sortTableRows(table *metav1.Table, expr string) error {
	if len(table.Rows) < 2 {
		return nil
	}
	keys := make([]any, len(table.Rows))
	for i, row := range table.Rows {
		obj, _ := rowObject(row)
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
