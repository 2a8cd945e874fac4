package history

import (
	"encoding/json"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Writer finds the managedFields entry of the manager that wrote cur over
// prev (prev is nil for a create). That is the entry the write added or
// renewed (new, or with a new time), else one whose fields changed (a
// manager that only lost fields comes out the same way, so renewed
// entries win), the latest first. When no entry changed (a manager
// rewrote values it already owned within the same second, the time's
// resolution), it is the owner of the first changed field that has one.
// ok is false when neither finds an entry.
func Writer(prev, cur []metav1.ManagedFieldsEntry, changes []Change) (entry metav1.ManagedFieldsEntry, ok bool) {
	before := make(map[string]metav1.ManagedFieldsEntry, len(prev))
	for _, e := range prev {
		before[entryID(e)] = e
	}
	best, bestRank := -1, 0
	for i, e := range cur {
		rank := changeRank(before, e)
		if rank == 0 {
			continue
		}
		if best < 0 || rank > bestRank || rank == bestRank && later(e.Time, cur[best].Time) {
			best, bestRank = i, rank
		}
	}
	if best >= 0 {
		return cur[best], true
	}
	for _, c := range changes {
		if i := owner(cur, c.Fields); i >= 0 {
			return cur[i], true
		}
	}
	return metav1.ManagedFieldsEntry{}, false
}

// changeRank says how e changed since before: 2 added or renewed, 1 its
// fields changed, 0 not at all.
func changeRank(before map[string]metav1.ManagedFieldsEntry, e metav1.ManagedFieldsEntry) int {
	p, had := before[entryID(e)]
	switch {
	case !had, !sameTime(p.Time, e.Time):
		return 2
	case !reflect.DeepEqual(fieldsTree(p.FieldsV1), fieldsTree(e.FieldsV1)):
		return 1
	}
	return 0
}

// entryID is what makes a managedFields entry distinct.
func entryID(e metav1.ManagedFieldsEntry) string {
	return e.Manager + "\x00" + string(e.Operation) + "\x00" + e.Subresource + "\x00" + e.APIVersion
}

func sameTime(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

// later reports whether a is after b; a missing time is the earliest.
func later(a, b *metav1.Time) bool {
	if a == nil {
		return false
	}
	return b == nil || a.After(b.Time)
}

// owner is the index of the latest entry whose fields hold the path
// fields (f:spec → f:replicas), -1 when none does or fields is empty.
func owner(entries []metav1.ManagedFieldsEntry, fields []string) int {
	if len(fields) == 0 {
		return -1
	}
	best := -1
	for i, e := range entries {
		if holds(fieldsTree(e.FieldsV1), fields) && (best < 0 || later(e.Time, entries[best].Time)) {
			best = i
		}
	}
	return best
}

func holds(tree map[string]any, fields []string) bool {
	for _, f := range fields {
		next, ok := tree["f:"+f].(map[string]any)
		if !ok {
			return false
		}
		tree = next
	}
	return true
}

// fieldsTree decodes a FieldsV1 set; nil when there is none.
func fieldsTree(f *metav1.FieldsV1) map[string]any {
	if f == nil {
		return nil
	}
	var tree map[string]any
	if json.Unmarshal(f.GetRawBytes(), &tree) != nil {
		return nil
	}
	return tree
}
