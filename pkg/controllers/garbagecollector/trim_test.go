package garbagecollector

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestOwnershipOnlyKeepsWhatTheCollectorReads(t *testing.T) {
	yes := true
	now := metav1.Now()
	m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: "cm", Namespace: "default", UID: "u1", ResourceVersion: "7",
		Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"big": "x"},
		ManagedFields:     []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d1", Controller: &yes}},
		Finalizers:        []string{"foregroundDeletion"},
		DeletionTimestamp: &now,
	}}
	out, _ := ownershipOnly(m)
	got := out.(*metav1.PartialObjectMetadata)
	if got.Labels != nil || got.Annotations != nil || got.ManagedFields != nil {
		t.Errorf("kept labels %v, annotations %v or managedFields %v", got.Labels, got.Annotations, got.ManagedFields)
	}
	if got.UID != "u1" || got.ResourceVersion != "7" || len(got.OwnerReferences) != 1 || len(got.Finalizers) != 1 || got.DeletionTimestamp == nil {
		t.Errorf("lost what the collector reads: %+v", got.ObjectMeta)
	}
}
