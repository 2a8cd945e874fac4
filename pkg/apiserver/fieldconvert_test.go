package apiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestFieldManagerConvertsWithoutCopying checks that a built-in kind's
// field manager is given kube-apiserver's UnsafeConvertor: an object
// already of the version asked for is converted in place (kind set), not
// deep-copied, on every write.
func TestFieldManagerConvertsWithoutCopying(t *testing.T) {
	reg := builtinRegistry(t)
	pods, _ := reg.Lookup(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	pod := &corev1.Pod{}
	out, err := objectConvertorFor(pods, reg).ConvertToVersion(pod, corev1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	if out != pod {
		t.Errorf("converting a v1 pod to v1 gave a copy")
	}
	if gvk := out.GetObjectKind().GroupVersionKind(); gvk != corev1.SchemeGroupVersion.WithKind("Pod") {
		t.Errorf("kind %v, want v1 Pod", gvk)
	}
}
