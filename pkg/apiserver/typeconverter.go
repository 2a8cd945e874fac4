package apiserver

import (
	"fmt"
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

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
