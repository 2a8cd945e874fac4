package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// A custom resource has no generated definition: its schema is the
// CRD's (registry.Schema.OpenAPI), completed here as kube-apiserver
// completes it for its OpenAPI documents: apiVersion, kind and metadata
// are added (also to every embedded resource), the v2 document gets a
// form v2 can say (see v2schema.go), and the list kind is made up.

// Descriptions kube-apiserver gives the apiVersion and kind of a resource
// embedded in a custom resource (x-kubernetes-embedded-resource).
const (
	embeddedAPIVersionDoc = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	embeddedKindDoc       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// addCustomKind adds the definitions of a custom resource's kind and list
// kind, in both documents' forms, and returns their names.
func (d *definitions) addCustomKind(r *registry.Resource) (kind, list string, err error) {
	gvk := r.GroupVersionKind()
	listGVK := gvk.GroupVersion().WithKind(r.ListKind)
	kind, list = customDefinitionName(gvk), customDefinitionName(listGVK)
	for _, form := range []customForm{{v3: false, defs: d.customV2}, {v3: true, defs: d.customV3}} {
		object, err := form.objectSchema(r.Schema.OpenAPI)
		if err != nil {
			return "", "", fmt.Errorf("openapi: schema of %s: %w", gvk, err)
		}
		form.defs[kind] = common.OpenAPIDefinition{Schema: object, Dependencies: []string{objectMetaDef}}
		form.defs[list] = common.OpenAPIDefinition{Schema: form.listSchema(r, kind), Dependencies: []string{kind, listMetaDef}}
	}
	d.use(kind)
	d.use(list)
	d.mark(kind, gvk)
	d.mark(list, listGVK)
	return kind, list, nil
}

var (
	objectMetaDef = metav1.ObjectMeta{}.OpenAPIModelName()
	listMetaDef   = metav1.ListMeta{}.OpenAPIModelName()
)

// customForm completes custom resources' schemas for one document: v2
// (v3 false) or v3, into defs.
type customForm struct {
	v3   bool
	defs map[string]common.OpenAPIDefinition
}

// ref is a reference to the named definition, as the form's builder
// makes them.
func (f customForm) ref(name string) spec.Schema {
	prefix := refPrefixV2
	if f.v3 {
		prefix = refPrefixV3
	}
	return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(prefix + common.EscapeJsonPointer(name))}}
}

// objectSchema is the CRD's schema of the object with apiVersion, kind
// and metadata added. A v2 document gets an object whose root keeps
// unknown fields as a bare object: kubectl would otherwise reject fields
// the schema does not name.
func (f customForm) objectSchema(in *spec.Schema) (spec.Schema, error) {
	if in == nil {
		return scalar("object"), nil
	}
	s, err := copySchema(in)
	if err != nil {
		return spec.Schema{}, err
	}
	if f.v3 {
		expandIntOrString(&s)
	} else {
		if isTrue(&s, preserveUnknownFields) {
			return scalar("object"), nil
		}
		v2Compatible(&s)
	}
	f.addObjectMeta(&s, metav1.TypeMeta{}.SwaggerDoc()["apiVersion"], metav1.TypeMeta{}.SwaggerDoc()["kind"])
	f.completeEmbedded(&s)
	return s, nil
}

// addObjectMeta sets the apiVersion, kind and metadata properties,
// replacing whatever the CRD said of them. (kube-openapi's v3 builder
// wraps the described reference in an allOf.)
func (f customForm) addObjectMeta(s *spec.Schema, apiVersionDoc, kindDoc string) {
	s.SetProperty("apiVersion", described(scalar("string"), apiVersionDoc))
	s.SetProperty("kind", described(scalar("string"), kindDoc))
	s.SetProperty("metadata", described(f.ref(objectMetaDef), metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]))
}

// completeEmbedded gives every embedded resource (x-kubernetes-embedded-
// resource) its apiVersion, kind and metadata, and requires apiVersion and
// kind. In v2 one that keeps unknown fields is left alone: properties
// would make kubectl reject the fields they do not name.
func (f customForm) completeEmbedded(s *spec.Schema) {
	forEachChild(s, f.completeEmbedded)
	if !isTrue(s, embeddedResource) || (!f.v3 && isTrue(s, preserveUnknownFields)) {
		return
	}
	f.addObjectMeta(s, embeddedAPIVersionDoc, embeddedKindDoc)
	for _, field := range []string{"kind", "apiVersion"} {
		if !slices.Contains(s.Required, field) {
			s.Required = append(s.Required, field)
		}
	}
}

// listSchema is the list kind kube-apiserver makes up for a custom
// resource: apiVersion, kind, the items and the list's metadata.
func (f customForm) listSchema(r *registry.Resource, kindDef string) spec.Schema {
	item := f.ref(kindDef)
	items := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &item},
		Description: "List of " + r.Resource + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"}}
	typeMeta := metav1.TypeMeta{}.SwaggerDoc()
	return spec.Schema{SchemaProps: spec.SchemaProps{
		Type:        []string{"object"},
		Description: r.ListKind + " is a list of " + r.Kind,
		Required:    []string{"items"},
		Properties: map[string]spec.Schema{
			"apiVersion": described(scalar("string"), typeMeta["apiVersion"]),
			"kind":       described(scalar("string"), typeMeta["kind"]),
			"items":      items,
			"metadata":   described(f.ref(listMetaDef), metav1.PartialObjectMetadataList{}.SwaggerDoc()["metadata"]),
		},
	}}
}

func scalar(typ string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{typ}}}
}

func described(s spec.Schema, description string) spec.Schema {
	s.Description = description
	return s
}

// customDefinitionName is kube's name for a custom resource's schema,
// which has no Go package: the group with its parts reversed, then the
// version and kind, so that example.com/v1 Widget is com.example.v1.Widget.
func customDefinitionName(gvk schema.GroupVersionKind) string {
	parts := strings.Split(gvk.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + gvk.Version + "." + gvk.Kind
}

// copySchema deep-copies a schema (through JSON: spec.Schema has no
// DeepCopy), so that completing it never changes the registry's.
func copySchema(in *spec.Schema) (spec.Schema, error) {
	var out spec.Schema
	b, err := json.Marshal(in)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(b, &out)
	return out, err
}
