package apiserver

import (
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

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
			trusted, isTyped := tc.(trustedStructs)
			if isTyped != (errTheirs == nil) {
				t.Errorf("%s: typed here: %v, by client-go: %v (%v)", k.kind, isTyped, errTheirs == nil, errTheirs)
				continue
			}
			if !isTyped || trusted.TypeConverter != ours {
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

// TestTrustedStructsCompareAsValidated: for random pairs of objects of
// every typed kind, the field manager's comparison of them typed without
// validation (trustedStructs) fails exactly when it fails with it, and
// otherwise finds the same fields added, changed and removed; an apply
// configuration (unstructured) is still validated.
func TestTrustedStructsCompareAsValidated(t *testing.T) {
	reg, err := registry.NewBuiltin(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := newFieldManagers()
	validated, err := f.typed()
	if err != nil {
		t.Fatal(err)
	}
	fill := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(2), serializer.NewCodecFactory(scheme.Scheme)).NilChance(0.2).NumElements(1, 2)
	kinds, compared := 0, 0
	for _, res := range reg.All() {
		tc, err := f.converterFor(res.GroupVersionKind(), res.New, false)
		if err != nil {
			t.Fatal(err)
		}
		trusted, ok := tc.(trustedStructs)
		if !ok {
			continue
		}
		kinds++
		for range 20 {
			a, b := res.New(), res.New()
			fill.Fill(a)
			fill.Fill(b)
			if compareBothWays(t, res.GroupVersionKind(), a, b, validated, trusted) {
				compared++
			}
		}
	}
	if kinds < 30 || compared < kinds*20/2 {
		t.Errorf("%d kinds, %d pairs compared: too few to tell", kinds, compared)
	}

	// An element of an associative list without its key (the random
	// objects have few) fails both ways.
	sa := corev1.SchemeGroupVersion.WithKind("ServiceAccount")
	sas, _ := f.converterFor(sa, func() runtime.Object { return &corev1.ServiceAccount{} }, false)
	keyless := &corev1.ServiceAccount{Secrets: []corev1.ObjectReference{{Namespace: "x"}}}
	if compareBothWays(t, sa, &corev1.ServiceAccount{}, keyless, validated, sas) {
		t.Error("a secret reference without a name compared")
	}

	// Objects as maps (an apply configuration, a live object decoded as
	// one) are validated.
	pod := func(spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}, "spec": spec}}
	}
	pods, _ := f.converterFor(corev1.SchemeGroupVersion.WithKind("Pod"), func() runtime.Object { return &corev1.Pod{} }, false)
	twice := pod(map[string]any{"containers": []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}})
	if _, err := pods.ObjectToTyped(twice); err == nil {
		t.Error("an apply configuration with a duplicate container was not validated")
	}
	if _, err := pods.ObjectToTyped(pod(map[string]any{"bogus": true}), typed.AllowDuplicates); err == nil {
		t.Error("a pod as a map with a field the schema lacks was not validated")
	}
}

// compareBothWays compares a with b through both converters, as the field
// manager's update does, and fails t when they disagree. It reports
// whether the comparison succeeded.
func compareBothWays(t *testing.T, kind schema.GroupVersionKind, a, b runtime.Object, validated, trusted managedfields.TypeConverter) bool {
	t.Helper()
	compare := func(tc managedfields.TypeConverter) (*typed.Comparison, error) {
		for _, o := range []runtime.Object{a, b} {
			o.GetObjectKind().SetGroupVersionKind(kind)
		}
		ta, err := tc.ObjectToTyped(a, typed.AllowDuplicates)
		if err != nil {
			return nil, err
		}
		tb, err := tc.ObjectToTyped(b, typed.AllowDuplicates)
		if err != nil {
			return nil, err
		}
		return ta.Compare(tb)
	}
	want, errWant := compare(validated)
	got, errGot := compare(trusted)
	if (errWant == nil) != (errGot == nil) {
		t.Errorf("%s: validated: %v; trusted: %v", kind, errWant, errGot)
		return false
	}
	if errWant != nil {
		return false
	}
	if !want.Added.Equals(got.Added) || !want.Modified.Equals(got.Modified) || !want.Removed.Equals(got.Removed) {
		t.Errorf("%s: comparisons differ:\nvalidated: %v\ntrusted:   %v", kind, want, got)
	}
	return true
}
