package customresource

import (
	"reflect"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
)

func selectable(paths ...string) []apiextensionsv1.SelectableField {
	out := make([]apiextensionsv1.SelectableField, len(paths))
	for i, p := range paths {
		out[i] = apiextensionsv1.SelectableField{JSONPath: p}
	}
	return out
}

func TestFieldSet(t *testing.T) {
	obj := widget("w1", map[string]interface{}{
		"color": "blue", "size": int64(7), "ratio": 1.5, "enabled": false, "nothing": nil, "empty": "",
		"tags": []interface{}{"x", int64(2)},
	})
	for _, tc := range []struct {
		name       string
		selectable []apiextensionsv1.SelectableField
		namespaced bool
		want       fields.Set
	}{
		{"namespaced, no selectable fields", nil, true,
			fields.Set{"metadata.name": "w1", "metadata.namespace": "default"}},
		{"cluster-scoped, no selectable fields", nil, false,
			fields.Set{"metadata.name": "w1"}},
		{"string", selectable(".spec.color"), true,
			fields.Set{"metadata.name": "w1", "metadata.namespace": "default", "spec.color": "blue"}},
		{"integer, number and boolean as text", selectable(".spec.size", ".spec.ratio", ".spec.enabled"), false,
			fields.Set{"metadata.name": "w1", "spec.size": "7", "spec.ratio": "1.5", "spec.enabled": "false"}},
		{"absent, null and empty are empty", selectable(".status.phase", ".spec.nothing", ".spec.empty"), false,
			fields.Set{"metadata.name": "w1", "status.phase": "", "spec.nothing": "", "spec.empty": ""}},
		{"index", selectable(".spec.tags[1]"), false,
			fields.Set{"metadata.name": "w1", "spec.tags[1]": "2"}},
		{"several values are empty", selectable(".spec.tags[*]"), false,
			fields.Set{"metadata.name": "w1", "spec.tags[*]": ""}},
		{"unparsable path left out", selectable(".spec.tags[", ".spec.color"), false,
			fields.Set{"metadata.name": "w1", "spec.color": "blue"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FieldSet(tc.selectable, tc.namespaced)(obj)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FieldSet = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFieldSetSelects runs field selectors as the list handler does:
// an absent field matches "=" with an empty value and "!=" with any
// other.
func TestFieldSetSelects(t *testing.T) {
	set := FieldSet(selectable(".spec.color", ".spec.size"), true)
	blue := set(widget("w1", map[string]interface{}{"color": "blue", "size": int64(3)}))
	plain := set(widget("w2", map[string]interface{}{}))
	for _, tc := range []struct {
		selector         string
		matchBlue, plain bool
	}{
		{"spec.color=blue", true, false},
		{"spec.color!=blue", false, true},
		{"spec.size=3", true, false},
		{"spec.color=", false, true},
		{"metadata.name=w2,spec.color!=red", false, true},
	} {
		sel, err := fields.ParseSelector(tc.selector)
		if err != nil {
			t.Fatal(err)
		}
		if got := sel.Matches(blue); got != tc.matchBlue {
			t.Errorf("%s matches w1 = %v, want %v", tc.selector, got, tc.matchBlue)
		}
		if got := sel.Matches(plain); got != tc.plain {
			t.Errorf("%s matches w2 = %v, want %v", tc.selector, got, tc.plain)
		}
	}
}

func TestFieldSetOfTypedObject(t *testing.T) {
	// Not a custom resource: only what its metadata says.
	set := FieldSet(selectable(".spec.color"), true)(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}})
	if want := (fields.Set{"metadata.name": "p", "metadata.namespace": "ns"}); !reflect.DeepEqual(set, want) {
		t.Errorf("FieldSet = %v, want %v", set, want)
	}
	if got := FieldSet(nil, true)(&metav1.Status{}); len(got) != 0 {
		t.Errorf("FieldSet(Status) = %v, want empty", got)
	}
}

// TestFieldSetConcurrent shares one FieldSet func between goroutines, as
// concurrent lists do.
func TestFieldSetConcurrent(t *testing.T) {
	set := FieldSet(selectable(".spec.color"), false)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			w := &unstructured.Unstructured{Object: map[string]interface{}{
				"metadata": map[string]interface{}{"name": "w"},
				"spec":     map[string]interface{}{"color": []string{"red", "blue"}[i%2]},
			}}
			for range 50 {
				if got, want := set(w)["spec.color"], []string{"red", "blue"}[i%2]; got != want {
					t.Errorf("spec.color = %q, want %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
