package crd

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxSelectableFields bounds the field selectors a custom resource offers: each
// one is an index the server keeps.
const maxSelectableFields = 8

// selectableFieldsOf checks the selectable fields of one version (or of the top
// level, version ""), which need that version's schema to resolve against.
func (r *rules) selectableFieldsOf(fields []apiextensions.SelectableField, v *apiextensions.CustomResourceValidation, version string, path *field.Path) field.ErrorList {
	if len(fields) == 0 {
		return nil
	}
	if v == nil || v.OpenAPIV3Schema == nil {
		if version == "" {
			return field.ErrorList{field.Invalid(path.Child("selectableFields"), "", "may only be set when validations.schema is included")}
		}
		return field.ErrorList{field.Invalid(path.Child("selectableFields"), "", "may only be set when `version.schema.openAPIV3Schema` is not included")}
	}
	var errs field.ErrorList
	s, err := structuralschema.NewStructural(v.OpenAPIV3Schema)
	if err != nil {
		errs = append(errs, field.Invalid(path.Child("schema.openAPIV3Schema"), "", err.Error()))
	}
	return append(errs, r.selectableFieldErrors(fields, s, version, path.Child("selectableFields"))...)
}

// selectableFieldErrors: each path must resolve in the schema, outside metadata,
// to a string, boolean or integer, and appear once.
func (r *rules) selectableFieldErrors(fields []apiextensions.SelectableField, s *structuralschema.Structural, version string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, f := range fields {
		p := path.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			errs = append(errs, field.Required(p, ""))
			continue
		}
		resolved, target, err := cel.ValidFieldPath(f.JSONPath, s, cel.WithFieldPathAllowArrayNotation(false))
		if err != nil {
			errs = append(errs, field.Invalid(p, f.JSONPath, fmt.Sprintf("is an invalid path: %v", err)))
			continue
		}
		if resolved.Root().String() == "metadata" {
			errs = append(errs, field.Invalid(p, f.JSONPath, "must not point to fields in metadata"))
		}
		if target == nil || (target.Type != "string" && target.Type != "boolean" && target.Type != "integer") {
			errs = append(errs, field.Invalid(p, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if seen.Has(resolved.String()) {
			errs = append(errs, field.Duplicate(p, f.JSONPath))
		}
		seen.Insert(resolved.String())
	}
	if seen.Len() > maxSelectableFields && !r.overLimitSelectableFields.Has(version) {
		errs = append(errs, field.TooMany(path, seen.Len(), maxSelectableFields))
	}
	return errs
}
