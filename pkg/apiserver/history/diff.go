package history

import (
	"reflect"
	"sort"
	"strconv"
)

// Change is one field that differs between two revisions of an object.
type Change struct {
	// Path names the field for a reader: object fields joined with dots,
	// list elements by their key or index, keys that are not plain words
	// in brackets: spec.template.spec.containers[name=web].image,
	// metadata.annotations[deployment.kubernetes.io/revision].
	Path string
	// Fields is the path's leading object fields, up to the first list
	// element: the part that managedFields name (f:spec, f:replicas).
	Fields []string
	// Element is the path up to its first list element
	// (status.conditions[type=Available]); "" when it has none.
	Element string
	// Old and New are the field's values; nil where it is absent.
	Old, New any
}

// ignored are the fields that change on every write and say nothing
// about what the writer did: the revision itself and the field
// ownership, which Writer reads instead.
var ignored = [][]string{
	{"metadata", "resourceVersion"},
	{"metadata", "managedFields"},
}

// listKeys are the fields that name a list's elements, tried in order,
// as Kubernetes merges lists: containers and env by name, conditions by
// type, owner references by uid.
var listKeys = []string{"name", "type", "uid", "key", "containerPort", "port", "ip"}

// Diff lists the fields that differ between old and new, two objects as
// decoded from JSON: spec first, then the other top-level fields, status,
// and metadata last (a generation bump follows from the spec change). A
// field added or removed with everything below it is one change.
func Diff(old, new map[string]any) []Change {
	var d differ
	keys := unionKeys(old, new)
	sort.SliceStable(keys, func(i, j int) bool { return topRank(keys[i]) < topRank(keys[j]) })
	for _, k := range keys {
		a, hasA := old[k]
		b, hasB := new[k]
		d.value(path{}.field(k), a, b, hasA, hasB)
	}
	return d.out
}

// topRank orders the top-level fields.
func topRank(k string) int {
	switch k {
	case "spec":
		return 0
	case "status":
		return 2
	case "metadata":
		return 3
	}
	return 1
}

type differ struct{ out []Change }

func (d *differ) add(p path, a, b any) {
	d.out = append(d.out, Change{Path: p.text, Fields: p.fields, Element: p.element, Old: a, New: b})
}

func (d *differ) value(p path, a, b any, hasA, hasB bool) {
	if p.ignored() || (!hasA && !hasB) {
		return
	}
	if !hasA || !hasB {
		d.addOrRemove(p, a, b, hasA)
		return
	}
	ma, aIsMap := a.(map[string]any)
	mb, bIsMap := b.(map[string]any)
	if aIsMap && bIsMap {
		for _, k := range unionKeys(ma, mb) {
			va, okA := ma[k]
			vb, okB := mb[k]
			d.value(p.field(k), va, vb, okA, okB)
		}
		return
	}
	la, aIsList := a.([]any)
	lb, bIsList := b.([]any)
	if aIsList && bIsList {
		d.list(p, la, lb)
		return
	}
	if !reflect.DeepEqual(a, b) {
		d.add(p, a, b)
	}
}

// addOrRemove records a field that only one side has. An object of one
// field is followed down to it, so that a first annotation reads
// metadata.annotations[example.com/x]: <none> → y.
func (d *differ) addOrRemove(p path, a, b any, hasA bool) {
	v := b
	if hasA {
		v = a
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for k, inner := range m {
			if hasA {
				d.value(p.field(k), inner, nil, true, false)
			} else {
				d.value(p.field(k), nil, inner, false, true)
			}
		}
		return
	}
	d.add(p, a, b)
}

// list compares two lists element by element: by their key field when
// every element has a distinct one, else by index when the lengths agree.
// Lists of plain values, and lists that grew or shrank without keys, are
// one change.
func (d *differ) list(p path, a, b []any) {
	if reflect.DeepEqual(a, b) {
		return
	}
	if key := commonKey(a, b); key != "" {
		byKey := func(l []any) map[string]any {
			m := make(map[string]any, len(l))
			for _, e := range l {
				m[e.(map[string]any)[key].(string)] = e
			}
			return m
		}
		ma, mb := byKey(a), byKey(b)
		for _, id := range keyOrder(a, b, key) {
			va, okA := ma[id]
			vb, okB := mb[id]
			d.value(p.elem(key+"="+id), va, vb, okA, okB)
		}
		return
	}
	if len(a) != len(b) || !allCompound(a) || !allCompound(b) {
		d.add(p, a, b)
		return
	}
	for i := range a {
		d.value(p.elem(strconv.Itoa(i)), a[i], b[i], true, true)
	}
}

// commonKey is the first of listKeys that every element of a and b has
// as a string, distinct within each list; "" when none is.
func commonKey(a, b []any) string {
	for _, key := range listKeys {
		if distinctKey(a, key) && distinctKey(b, key) {
			return key
		}
	}
	return ""
}

func distinctKey(l []any, key string) bool {
	seen := make(map[string]bool, len(l))
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		id, ok := m[key].(string)
		if !ok || seen[id] {
			return false
		}
		seen[id] = true
	}
	return true
}

// keyOrder lists the element keys of b in b's order, then those only a
// has, in a's.
func keyOrder(a, b []any, key string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, l := range [][]any{b, a} {
		for _, e := range l {
			id := e.(map[string]any)[key].(string)
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

func allCompound(l []any) bool {
	for _, e := range l {
		switch e.(type) {
		case map[string]any, []any:
		default:
			return false
		}
	}
	return true
}

// unionKeys is the sorted keys of a and b.
func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
