package customresource

import (
	"fmt"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// versionSchema is one version's schema at work, built with the
// libraries kube-apiserver itself uses for CRDs: the structural schema
// prunes and defaults, the OpenAPI validator and the CEL validator check.
type versionSchema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	// status validates the status part alone (a status update).
	status apiservervalidation.SchemaValidator
	cel    *cel.Validator // nil when no rule is declared
	// preserveUnknown: the root keeps fields it does not declare.
	preserveUnknown bool
}

// newVersionSchema compiles the schema of version v of crd.
func newVersionSchema(v *apiextensionsv1.CustomResourceDefinitionVersion) (*versionSchema, error) {
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("version %s has no schema", v.Name)
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
		return nil, fmt.Errorf("version %s: %w", v.Name, err)
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, fmt.Errorf("version %s: the schema is not structural: %w", v.Name, err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return nil, fmt.Errorf("version %s: %w", v.Name, err)
	}
	s := &versionSchema{structural: structural, validator: validator,
		cel: cel.NewValidator(structural, true, celconfig.PerCallLimit)}
	if st, ok := internal.Properties["status"]; ok {
		if s.status, _, err = apiservervalidation.NewSchemaValidator(&st); err != nil {
			return nil, fmt.Errorf("version %s: status: %w", v.Name, err)
		}
	}
	s.preserveUnknown = structural.XPreserveUnknownFields
	return s, nil
}

// prune drops what the schema does not declare and returns the dropped
// paths, sorted, as kube's unknown-field warnings name them.
func (s *versionSchema) prune(obj *unstructured.Unstructured) []string {
	pruned := structuralpruning.PruneWithOptions(obj.Object, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	sort.Strings(pruned)
	return pruned
}

// applyDefaults fills the schema's defaults, then drops the nulls that
// neither a default nor nullable allows, as kube-apiserver does.
func (s *versionSchema) applyDefaults(obj *unstructured.Unstructured) {
	structuraldefaulting.Default(obj.Object, s.structural)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj.Object, s.structural)
}

// openAPI is the object's schema for the OpenAPI documents.
func (s *versionSchema) openAPI() *spec.Schema { return s.structural.ToKubeOpenAPI() }

// typeConverter describes the object to field management. The converter
// finds the definition by its x-kubernetes-group-version-kind tag; the
// name only keys the map (the OpenAPI documents name it in package
// openapi).
func (s *versionSchema) typeConverter(gvk schema.GroupVersionKind) (managedfields.TypeConverter, error) {
	def := s.openAPI()
	if def.Properties == nil {
		def.Properties = map[string]spec.Schema{}
	}
	for _, name := range []string{"apiVersion", "kind"} {
		if _, ok := def.Properties[name]; !ok {
			def.Properties[name] = *spec.StringProperty()
		}
	}
	if _, ok := def.Properties["metadata"]; !ok {
		meta := spec.MapProperty(nil)
		meta.Extensions = spec.Extensions{"x-kubernetes-preserve-unknown-fields": true}
		def.Properties["metadata"] = *meta
	}
	def.AddExtension("x-kubernetes-group-version-kind", []interface{}{map[string]interface{}{
		"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind,
	}})
	return managedfields.NewTypeConverter(map[string]*spec.Schema{gvk.String(): def}, s.preserveUnknown)
}
