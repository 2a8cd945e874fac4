package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// A custom resource has no Go type to reflect over: its schema is the
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
// kind and returns their names.
func (d *definitions) addCustomKind(r *registry.Resource) (kind, list string, err error) {
	gvk := r.GroupVersionKind()
	listGVK := gvk.GroupVersion().WithKind(r.ListKind)
	kind, list = customDefinitionName(gvk), customDefinitionName(listGVK)
	object, err := d.customObjectSchema(r.Schema.OpenAPI)
	if err != nil {
		return "", "", fmt.Errorf("openapi: schema of %s: %w", gvk, err)
	}
	d.defs[kind] = object
	d.defs[list] = d.customListSchema(r, kind)
	d.mark(kind, gvk)
	d.mark(list, listGVK)
	return kind, list, nil
}

// customObjectSchema is the CRD's schema of the object with apiVersion,
// kind and metadata added. A v2 document gets an object whose root keeps
// unknown fields as a bare object: kubectl would otherwise reject fields
// the schema does not name.
func (d *definitions) customObjectSchema(in *spec.Schema) (spec.Schema, error) {
	if in == nil {
		return scalar("object", ""), nil
	}
	s, err := copySchema(in)
	if err != nil {
		return spec.Schema{}, err
	}
	if d.v3 {
		expandIntOrString(&s)
	} else {
		if isTrue(&s, preserveUnknownFields) {
			return scalar("object", ""), nil
		}
		v2Compatible(&s)
	}
	d.addObjectMeta(&s, metav1.TypeMeta{}.SwaggerDoc()["apiVersion"], metav1.TypeMeta{}.SwaggerDoc()["kind"])
	d.completeEmbedded(&s)
	return s, nil
}

// addObjectMeta sets the apiVersion, kind and metadata properties,
// replacing whatever the CRD said of them.
func (d *definitions) addObjectMeta(s *spec.Schema, apiVersionDoc, kindDoc string) {
	s.SetProperty("apiVersion", described(scalar("string", ""), apiVersionDoc))
	s.SetProperty("kind", described(scalar("string", ""), kindDoc))
	meta := d.named(reflect.TypeFor[metav1.ObjectMeta]())
	s.SetProperty("metadata", d.describe(d.ref(meta), metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]))
}

// completeEmbedded gives every embedded resource (x-kubernetes-embedded-
// resource) its apiVersion, kind and metadata, and requires apiVersion and
// kind. In v2 one that keeps unknown fields is left alone: properties
// would make kubectl reject the fields they do not name.
func (d *definitions) completeEmbedded(s *spec.Schema) {
	for name, p := range s.Properties {
		d.completeEmbedded(&p)
		s.Properties[name] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		d.completeEmbedded(s.Items.Schema)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		d.completeEmbedded(s.AdditionalProperties.Schema)
	}
	if !isTrue(s, embeddedResource) || (!d.v3 && isTrue(s, preserveUnknownFields)) {
		return
	}
	d.addObjectMeta(s, embeddedAPIVersionDoc, embeddedKindDoc)
	for _, field := range []string{"kind", "apiVersion"} {
		if !slices.Contains(s.Required, field) {
			s.Required = append(s.Required, field)
		}
	}
}

// customListSchema is the list kind kube-apiserver makes up for a custom
// resource: apiVersion, kind, the items and the list's metadata.
func (d *definitions) customListSchema(r *registry.Resource, kindDef string) spec.Schema {
	item := d.ref(kindDef)
	items := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &item},
		Description: "List of " + r.Resource + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"}}
	typeMeta := metav1.TypeMeta{}.SwaggerDoc()
	listMeta := d.named(reflect.TypeFor[metav1.ListMeta]())
	return spec.Schema{SchemaProps: spec.SchemaProps{
		Type:        []string{"object"},
		Description: r.ListKind + " is a list of " + r.Kind,
		Required:    []string{"items"},
		Properties: map[string]spec.Schema{
			"apiVersion": described(scalar("string", ""), typeMeta["apiVersion"]),
			"kind":       described(scalar("string", ""), typeMeta["kind"]),
			"items":      items,
			"metadata":   d.describe(d.ref(listMeta), metav1.PartialObjectMetadataList{}.SwaggerDoc()["metadata"]),
		},
	}}
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
