package apiserver

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestLabelsOfStored: the labels read from the stored bytes are the
// decoded object's, wherever they sit and whatever else the object holds.
func TestLabelsOfStored(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u",
		Labels:      map[string]string{"app": "web", "tier": "a,b"},
		Annotations: map[string]string{"labels": `{"app":"db"}`},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:app":{}}}}`)}}},
		Spec: corev1.PodSpec{NodeSelector: map[string]string{"app": "other"}}}
	b, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, value string
		want        labels.Set
	}{
		{"a pod as stored", string(b), labels.Set{"app": "web", "tier": "a,b"}},
		{"labels after a long field", `{"metadata":{"managedFields":[{"manager":"x"}],"labels":{"a":"1"}},"spec":{}}`, labels.Set{"a": "1"}},
		{"metadata after another field", `{"spec":{"labels":{"a":"2"}},"metadata":{"labels":{"a":"1"}}}`, labels.Set{"a": "1"}},
		{"no labels", `{"metadata":{"name":"x"},"spec":{"labels":{"a":"1"}}}`, nil},
		{"no metadata", `{"spec":{}}`, nil},
	} {
		got, err := labelsOfStored([]byte(c.value))
		if err != nil || !labels.Equals(got, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	if _, err := labelsOfStored([]byte(`[1]`)); err == nil {
		t.Error("a stored value that is not an object read without an error")
	}
}
