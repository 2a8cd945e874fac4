package openapi

import (
	"fmt"
	"maps"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/miniapi/miniapi/pkg/apiserver/openapi/generated"
)

// Where each document's references point; kube-openapi's builders make
// their references the same way.
const (
	refPrefixV2 = "#/definitions/"
	refPrefixV3 = "#/components/schemas/"
)

// definitions is what the documents' schemas come from: openapi-gen's
// definitions of the k8s.io/api and apimachinery types (package
// generated), keyed by their OpenAPI model names
// (io.k8s.api.apps.v1.Deployment), plus those of the custom resources, and
// the group-version-kinds each served definition is marked with.
type definitions struct {
	// roots are every definition the served operations name.
	roots []string
	// gvks are the group/version/kinds each definition is served as.
	gvks map[string][]schema.GroupVersionKind
	// customV2 and customV3 are the custom resources' definitions in
	// each document's form (custom.go).
	customV2, customV3 map[string]common.OpenAPIDefinition
	// err is the first kind without a generated definition.
	err error
}

func newDefinitions() *definitions {
	return &definitions{gvks: map[string][]schema.GroupVersionKind{},
		customV2: map[string]common.OpenAPIDefinition{}, customV3: map[string]common.OpenAPIDefinition{}}
}

// modelNamer is implemented by every k8s.io/api and apimachinery type
// (their zz_generated.model_name.go): the name of its definition.
type modelNamer interface {
	OpenAPIModelName() string
}

// addKind records that obj's definition is served as gvk and returns its
// name.
func (d *definitions) addKind(obj interface{}, gvk schema.GroupVersionKind) string {
	named, ok := obj.(modelNamer)
	if !ok {
		if d.err == nil {
			d.err = fmt.Errorf("openapi: %T (%s) has no OpenAPI model name", obj, gvk)
		}
		return ""
	}
	name := named.OpenAPIModelName()
	d.use(name)
	d.mark(name, gvk)
	return name
}

// use makes name one of the roots the documents are built from.
func (d *definitions) use(name string) {
	if _, seen := d.gvks[name]; !seen {
		d.gvks[name] = nil
		d.roots = append(d.roots, name)
	}
}

// mark records that the named definition is served as gvk.
func (d *definitions) mark(name string, gvk schema.GroupVersionKind) {
	for _, have := range d.gvks[name] {
		if have == gvk {
			return
		}
	}
	d.gvks[name] = append(d.gvks[name], gvk)
}

// definitionName is kube-openapi's GetDefinitionName: the name stays (the
// generated definitions are keyed by their model names), and a served kind
// gets its x-kubernetes-group-version-kind, as kube-apiserver's namer
// gives it.
func (d *definitions) definitionName(name string) (string, spec.Extensions) {
	gvks := d.gvks[name]
	if len(gvks) == 0 {
		return name, nil
	}
	sorted := append([]schema.GroupVersionKind(nil), gvks...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].String() < sorted[j].String() })
	ext := make([]interface{}, 0, len(sorted))
	for _, g := range sorted {
		ext = append(ext, map[string]interface{}{"group": g.Group, "version": g.Version, "kind": g.Kind})
	}
	return name, spec.Extensions{"x-kubernetes-group-version-kind": ext}
}

// openAPIDefinitions is kube-openapi's GetDefinitions: the generated
// definitions and the custom resources' (custom is customV2 or customV3).
func openAPIDefinitions(custom map[string]common.OpenAPIDefinition) common.GetOpenAPIDefinitions {
	return func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		defs := generated.GetOpenAPIDefinitions(ref)
		maps.Copy(defs, custom)
		return defs
	}
}

// refV3 is a v3 document's reference to a definition.
func refV3(name string) spec.Ref {
	return spec.MustCreateRef(refPrefixV3 + common.EscapeJsonPointer(name))
}
