package cli

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
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

// decodeRowObject decodes the object embedded in a Table row.
func decodeRowObject(row metav1.TableRow) (map[string]any, bool) {
	if len(row.Object.Raw) == 0 {
		return nil, false
	}
	var m map[string]any
	if err := utiljson.Unmarshal(row.Object.Raw, &m); err != nil {
		return nil, false
	}
	return m, true
}
