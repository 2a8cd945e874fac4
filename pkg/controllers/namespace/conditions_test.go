package namespace

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConditions(t *testing.T) {
	now := metav1.Now()
	byType := func(cs []corev1.NamespaceCondition) map[corev1.NamespaceConditionType]corev1.NamespaceCondition {
		m := map[corev1.NamespaceConditionType]corev1.NamespaceCondition{}
		for _, c := range cs {
			m[c.Type] = c
		}
		return m
	}
	busy := byType(leftovers{
		counts:     map[string]int{"pods.": 2, "replicasets.apps": 1},
		finalizers: map[string]int{"foregroundDeletion": 1},
		deleteErr:  errors.New("boom"),
	}.conditions(now))
	if c := busy[corev1.NamespaceContentRemaining]; c.Status != corev1.ConditionTrue || c.Reason != "SomeResourcesRemain" ||
		c.Message != "Some resources are remaining: pods. has 2 resource instances, replicasets.apps has 1 resource instances" {
		t.Errorf("ContentRemaining = %+v", c)
	}
	if c := busy[corev1.NamespaceFinalizersRemaining]; c.Status != corev1.ConditionTrue ||
		c.Message != "Some content in the namespace has finalizers remaining: foregroundDeletion in 1 resource instances" {
		t.Errorf("FinalizersRemaining = %+v", c)
	}
	if c := busy[corev1.NamespaceDeletionContentFailure]; c.Status != corev1.ConditionTrue || c.Message != "boom" {
		t.Errorf("ContentFailure = %+v", c)
	}
	done := leftovers{counts: map[string]int{}, finalizers: map[string]int{}}.conditions(now)
	if len(done) != 5 {
		t.Fatalf("%d conditions, want 5", len(done))
	}
	for _, c := range done {
		if c.Status != corev1.ConditionFalse {
			t.Errorf("empty namespace: %s is %s, want False", c.Type, c.Status)
		}
	}
	if !conditionsCurrent(done, leftovers{}.conditions(metav1.Now())) || conditionsCurrent(done, leftovers{counts: map[string]int{"pods.": 1}}.conditions(now)) {
		t.Error("conditionsCurrent does not compare content")
	}
}
