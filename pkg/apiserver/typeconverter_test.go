package apiserver

import (
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// TestBuiltinTypeConverterMatchesClientGo: the converter made from the
// OpenAPI definitions types the same kinds as client-go's (the one the
// field manager used before), and gives random objects of each the same
// field sets, so managedFields and apply merges stay as they were.
func TestBuiltinTypeConverterMatchesClientGo(t *testing.T) {
	reg, err := registry.NewBuiltin(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := builtinTypeConverter()
	if err != nil {
		t.Fatal(err)
	}
	f := newFieldManagers()
	f.typed = func() (managedfields.TypeConverter, error) { return ours, nil }
	theirs := applyconfigurations.NewTypeConverter(scheme.Scheme)
	fill := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(1), serializer.NewCodecFactory(scheme.Scheme)).NilChance(0.2).NumElements(1, 2)

	typed, compared := 0, 0
	for _, res := range reg.All() {
		kinds := []viewKind{{res.GroupVersionKind(), res.New, false}}
		for _, sub := range res.Subresources {
			if sub.View != nil {
				kinds = append(kinds, viewKind{sub.Kind, sub.View.New, true})
			}
		}
		for _, k := range kinds {
			tc, err := f.converterFor(k.kind, k.new, k.view)
			if err != nil {
				t.Fatal(err)
			}
			probe := k.new()
			probe.GetObjectKind().SetGroupVersionKind(k.kind)
			_, errTheirs := theirs.ObjectToTyped(probe)
			if (tc == ours) != (errTheirs == nil) {
				t.Errorf("%s: typed here: %v, by client-go: %v (%v)", k.kind, tc == ours, errTheirs == nil, errTheirs)
				continue
			}
			if tc != ours {
				continue
			}
			typed++
			for range 20 {
				obj := k.new()
				fill.Fill(obj)
				obj.GetObjectKind().SetGroupVersionKind(k.kind)
				if compareFieldSets(t, k.kind, obj, ours, theirs) {
					compared++
				}
			}
		}
	}
	// Random objects that neither converter takes prove nothing.
	if typed < 30 || compared < typed*20*9/10 {
		t.Errorf("only %d kinds typed, %d objects compared", typed, compared)
	}
}

// viewKind is a kind the field manager converts, and whether a view
// serves it.
type viewKind struct {
	kind schema.GroupVersionKind
	new  func() runtime.Object
	view bool
}

// compareFieldSets reports whether both converters gave obj a field set,
// and fails t when they differ.
func compareFieldSets(t *testing.T, kind schema.GroupVersionKind, obj runtime.Object, ours, theirs managedfields.TypeConverter) bool {
	t.Helper()
	a, errA := ours.ObjectToTyped(obj)
	b, errB := theirs.ObjectToTyped(obj)
	if (errA == nil) != (errB == nil) {
		t.Errorf("%s: converting: %v here, %v by client-go", kind, errA, errB)
		return false
	}
	if errA != nil {
		return false
	}
	fa, errA := a.ToFieldSet()
	fb, errB := b.ToFieldSet()
	if (errA == nil) != (errB == nil) {
		t.Errorf("%s: field set: %v here, %v by client-go", kind, errA, errB)
		return false
	}
	if errA != nil {
		return false
	}
	if !fa.Equals(fb) {
		t.Errorf("%s: field sets differ:\nhere:      %s\nclient-go: %s", kind, fa, fb)
	}
	return true
}
