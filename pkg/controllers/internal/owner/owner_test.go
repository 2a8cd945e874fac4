package owner

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestControllerKey(t *testing.T) {
	set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns", UID: "u1"}}
	setKind := appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	owned := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "ns",
		OwnerReferences: []metav1.OwnerReference{ControllerRef(set, setKind)}}}
	notController := owned.DeepCopy()
	notController.OwnerReferences[0].Controller = nil
	for _, c := range []struct {
		name string
		obj  any
		kind bool
		want string
	}{
		{"a dependent", owned, true, "ns/db"},
		{"the tombstone of a deleted dependent", cache.DeletedFinalStateUnknown{Key: "ns/db-0", Obj: owned}, true, "ns/db"},
		{"an owner that is not its controller", notController, false, ""},
		{"no owner", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"}}, false, ""},
		{"not an object", "ns/db-0", false, ""},
	} {
		got, ok := ControllerKey(c.obj, setKind)
		if got != c.want || ok != c.kind {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, ok, c.want, c.kind)
		}
	}
	if _, ok := ControllerKey(owned, appsv1.SchemeGroupVersion.WithKind("ReplicaSet")); ok {
		t.Error("a StatefulSet's pod gave a key for a ReplicaSet")
	}
	if _, ok := ControllerKey(owned, appsv1.SchemeGroupVersion.WithKind("StatefulSet").GroupKind().WithVersion("v1beta1")); ok {
		t.Error("a controller of another apiVersion matched")
	}
}
