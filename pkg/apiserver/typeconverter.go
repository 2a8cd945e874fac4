package apiserver

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/miniapi/miniapi/pkg/apiserver/openapi/generated"
)

// builtinTypes is the typed converter of the built-in kinds, built on
// the first write of any server in the process: it is the same for every
// server, and a test process (pkg/testenv) starts many.
var builtinTypes = sync.OnceValues(builtinTypeConverter)

// builtinTypeConverter makes the typed converter of the built-in kinds
// from the served kinds' OpenAPI definitions (package generated), as
// kube-apiserver makes its own from its OpenAPI models.
//
// client-go's applyconfigurations.NewTypeConverter knows the same
// schemas (and every other group and version client-go has), but parses
// them from one YAML document: 21 MiB allocated and some 170 ms on the
// first write, after which the heap kept about 10 MiB more resident at
// idle. Built from the definitions it allocates about 5 MiB in 20 ms.
//
// The kinds it types are client-go's converter's among the served ones
// (see typedKinds); the field manager gives views (autoscaling/v1 Scale)
// the deduced converter, as before.
func builtinTypeConverter() (managedfields.TypeConverter, error) {
	defs := generated.GetOpenAPIDefinitions(definitionRef)
	kinds := typedKinds(defs)
	schemas := make(map[string]*spec.Schema, len(defs))
	for name, def := range defs {
		s := def.Schema
		if gvks := kinds[name]; len(gvks) > 0 {
			s.Extensions = withGroupVersionKinds(s.Extensions, gvks)
		}
		schemas[name] = &s
	}
	tc, err := managedfields.NewTypeConverter(schemas, false)
	if err != nil {
		return nil, fmt.Errorf("type converter of the built-in kinds: %w", err)
	}
	return tc, nil
}

// definitionRef is how the definitions refer to each other; the
// converter reads either document's form.
func definitionRef(name string) spec.Ref {
	return spec.MustCreateRef("#/definitions/" + common.EscapeJsonPointer(name))
}

// typedKinds are the definitions the converter indexes, by model name,
// with the group/version/kinds each is indexed as: every kind of
// client-go's scheme that client-go has an apply configuration for and
// that has a definition here. client-go's converter knows those kinds
// (its schemas are the apply configurations'), and the test checks that
// the two agree on every served kind.
func typedKinds(defs map[string]common.OpenAPIDefinition) map[string][]schema.GroupVersionKind {
	kinds := map[string][]schema.GroupVersionKind{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if applyconfigurations.ForKind(gvk) == nil {
			continue
		}
		name, err := scheme.Scheme.ToOpenAPIDefinitionName(gvk)
		if err != nil {
			continue
		}
		if _, ok := defs[name]; ok {
			kinds[name] = append(kinds[name], gvk)
		}
	}
	return kinds
}

// withGroupVersionKinds is ext plus the x-kubernetes-group-version-kind
// extension the converter indexes definitions by. ext may be shared with
// other schemas, so it is copied.
func withGroupVersionKinds(ext spec.Extensions, gvks []schema.GroupVersionKind) spec.Extensions {
	out := maps.Clone(ext)
	if out == nil {
		out = spec.Extensions{}
	}
	list := make([]interface{}, 0, len(gvks))
	for _, g := range gvks {
		list = append(list, map[string]interface{}{"group": g.Group, "version": g.Version, "kind": g.Kind})
	}
	out["x-kubernetes-group-version-kind"] = list
	return out
}

// trustedStructs is the built-in converter for one kind, but it does not
// validate the kind's Go struct when the field manager types a live or a
// new object (the calls that pass typed.AllowDuplicates). Validation
// walks the whole object once more before the comparison walks it again,
// and it was about a tenth of the server's CPU in a reconcile round. It
// cannot fail there but where the comparison or merge that follows fails
// as well: the struct's shape is the schema's (both are made from the
// same Go types; TestBuiltinTypeConverterMatchesClientGo), duplicates are
// allowed by that option, and an associative list element without its
// key is the walkers' error too (TestTrustedStructsCompareAsValidated).
// kube-apiserver validates here; the managedFields come out the same.
// Anything else, an apply configuration above all, is validated.
type trustedStructs struct {
	managedfields.TypeConverter
	kind    schema.GroupVersionKind
	schema  *smdschema.Schema
	typeRef smdschema.TypeRef
}

// trust is tc for kind without the validation of kind's Go structs;
// probe is the converter's typed value of an empty one, whose schema
// and type the walkers require to be the converter's own.
func trust(tc managedfields.TypeConverter, kind schema.GroupVersionKind, probe *typed.TypedValue) trustedStructs {
	return trustedStructs{TypeConverter: tc, kind: kind, schema: probe.Schema(), typeRef: probe.TypeRef()}
}

func (c trustedStructs) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if _, isMap := obj.(runtime.Unstructured); isMap || !slices.Contains(opts, typed.AllowDuplicates) || obj.GetObjectKind().GroupVersionKind() != c.kind {
		return c.TypeConverter.ObjectToTyped(obj, opts...)
	}
	v, err := value.NewValueReflect(obj)
	if err != nil {
		return nil, err
	}
	//lint:ignore SA1019 deprecated because validation became cheap; it is still a tenth of a write here
	return typed.AsTypedUnvalidated(v, c.schema, c.typeRef), nil
}
