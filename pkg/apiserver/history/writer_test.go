package history

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func entry(manager string, op metav1.ManagedFieldsOperationType, sub string, sec int, fields string) metav1.ManagedFieldsEntry {
	e := metav1.ManagedFieldsEntry{Manager: manager, Operation: op, Subresource: sub, APIVersion: "v1", FieldsType: "FieldsV1",
		FieldsV1: metav1.NewFieldsV1(fields)}
	if sec >= 0 {
		t := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, sec, 0, time.UTC))
		e.Time = &t
	}
	return e
}

const (
	dataA    = `{"f:data":{"f:a":{}}}`
	dataAB   = `{"f:data":{"f:a":{},"f:b":{}}}`
	replicas = `{"f:spec":{"f:replicas":{}}}`
	status   = `{"f:status":{"f:replicas":{}}}`
)

func TestWriter(t *testing.T) {
	create := entry("kubectl-create", metav1.ManagedFieldsOperationUpdate, "", 1, dataA)
	for _, tc := range []struct {
		name      string
		prev, cur []metav1.ManagedFieldsEntry
		changes   []Change
		want      string // "" for none
	}{
		{"create", nil, []metav1.ManagedFieldsEntry{create}, nil, "kubectl-create"},
		{"a new manager's entry",
			[]metav1.ManagedFieldsEntry{create},
			[]metav1.ManagedFieldsEntry{create, entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "", 2, `{"f:data":{"f:b":{}}}`)},
			nil, "kubectl-edit"},
		{"a renewed entry beats one that only lost fields",
			[]metav1.ManagedFieldsEntry{entry("a", metav1.ManagedFieldsOperationUpdate, "", 1, dataAB), entry("b", metav1.ManagedFieldsOperationUpdate, "", 1, `{"f:data":{"f:c":{}}}`)},
			[]metav1.ManagedFieldsEntry{entry("a", metav1.ManagedFieldsOperationUpdate, "", 1, dataA), entry("b", metav1.ManagedFieldsOperationUpdate, "", 3, `{"f:data":{"f:b":{},"f:c":{}}}`)},
			nil, "b"},
		{"a new entry without a time (kube's scale subresource)",
			[]metav1.ManagedFieldsEntry{create},
			[]metav1.ManagedFieldsEntry{entry("kubectl", metav1.ManagedFieldsOperationUpdate, "scale", -1, replicas), create},
			nil, "kubectl"},
		{"same manager, same second, same fields: the owner of the change",
			[]metav1.ManagedFieldsEntry{create, entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status", 2, status)},
			[]metav1.ManagedFieldsEntry{create, entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status", 2, status)},
			[]Change{{Path: "status.replicas", Fields: []string{"status", "replicas"}}},
			"kube-controller-manager"},
		{"nobody",
			[]metav1.ManagedFieldsEntry{create},
			[]metav1.ManagedFieldsEntry{create},
			[]Change{{Path: "metadata.generation", Fields: []string{"metadata", "generation"}}},
			""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Writer(tc.prev, tc.cur, tc.changes)
			if !ok {
				got.Manager = ""
			}
			if got.Manager != tc.want {
				t.Errorf("writer %q, want %q", got.Manager, tc.want)
			}
		})
	}
}
