package controllers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestDropManagedFieldsKeepsTheRest(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: "web", Labels: map[string]string{"app": "web"},
		Annotations:   map[string]string{"controller.kubernetes.io/pod-deletion-cost": "5"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}},
	}}
	out, err := dropManagedFields(p)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Pod)
	if got.ManagedFields != nil {
		t.Errorf("managedFields kept: %v", got.ManagedFields)
	}
	if got.Labels["app"] != "web" || got.Annotations["controller.kubernetes.io/pod-deletion-cost"] != "5" {
		t.Errorf("labels or annotations lost: %v %v", got.Labels, got.Annotations)
	}
}

func TestDropManagedFieldsPassesTombstonesThrough(t *testing.T) {
	tomb := cache.DeletedFinalStateUnknown{Key: "default/web", Obj: &corev1.Pod{}}
	out, err := dropManagedFields(tomb)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out.(cache.DeletedFinalStateUnknown); !ok {
		t.Errorf("a tombstone came out as %T", out)
	}
}
