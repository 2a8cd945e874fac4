package registry

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// errorStrings renders errors the way kubectl prints each cause.
func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// wantErrors fails unless errs render exactly as want, in order.
func wantErrors(t *testing.T, errs field.ErrorList, want ...string) {
	t.Helper()
	got := errorStrings(errs)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n got: %q\nwant: %q", got, want)
	}
}

// wantErrorContaining fails unless some error renders containing sub.
func wantErrorContaining(t *testing.T, errs field.ErrorList, sub string) {
	t.Helper()
	for _, s := range errorStrings(errs) {
		if strings.Contains(s, sub) {
			return
		}
	}
	t.Errorf("no error contains %q; got %q", sub, errorStrings(errs))
}

func objMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace}
}

// storedMeta is metadata as the handlers leave it on a stored object.
func storedMeta(name, namespace string) metav1.ObjectMeta {
	m := objMeta(name, namespace)
	m.UID = "u-1"
	m.ResourceVersion = "5"
	m.Generation = 1
	m.CreationTimestamp = metav1.Unix(1000, 0)
	return m
}

func container(name, image string) corev1.Container {
	return corev1.Container{Name: name, Image: image}
}

func ptr[T any](v T) *T { return &v }

// builtin is the built-in resources without a store (nothing here
// allocates).
func builtin(t testing.TB) []*Resource {
	t.Helper()
	resources, err := Builtin(Options{})
	if err != nil {
		t.Fatal(err)
	}
	return resources
}
