package crd

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// spec checks a spec in the order kube-apiserver does, so that a list of several
// errors reads the same.
func (r *rules) spec(spec *apiextensions.CustomResourceDefinitionSpec, path *field.Path) field.ErrorList {
	errs := groupErrors(spec.Group, path.Child("group"))
	errs = append(errs, oneOf(path.Child("scope"), string(spec.Scope), []string{string(apiextensions.ClusterScoped), string(apiextensions.NamespaceScoped)})...)
	errs = append(errs, missingSchemaErrors(spec, path)...)
	if schemaHas(spec, func(s *apiextensions.JSONSchemaProps) bool { return s.Default != nil }) && preservesUnknownFields(spec) {
		errs = append(errs, field.Invalid(path.Child("preserveUnknownFields"), true, "must be false in order to use defaults in the schema"))
	}
	errs = append(errs, r.versions(spec, path)...)
	errs = append(errs, namesRequired(&spec.Names, path.Child("names"))...)
	errs = append(errs, namesErrors(&spec.Names, path.Child("names"))...)
	errs = append(errs, r.schema(spec.Validation, statusInAnyVersion(spec), r.unchangedSchemas.Has(spec.Version), path.Child("validation"))...)
	errs = append(errs, subresourcesErrors(spec.Subresources, path.Child("subresources"))...)
	for i := range spec.AdditionalPrinterColumns {
		errs = append(errs, columnErrors(&spec.AdditionalPrinterColumns[i], path.Child("additionalPrinterColumns").Index(i))...)
	}
	errs = append(errs, r.selectableFieldsOf(spec.SelectableFields, spec.Validation, "", path)...)
	errs = append(errs, conversionErrors(spec, path.Child("conversion"))...)
	return errs
}

// groupErrors: a group is a DNS subdomain with at least one dot, so that it
// cannot collide with the built-in groups that have none.
func groupErrors(group string, path *field.Path) field.ErrorList {
	if group == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	if msgs := utilvalidation.IsDNS1123Subdomain(group); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(path, group, strings.Join(msgs, ","))}
	}
	if !strings.Contains(group, ".") {
		return field.ErrorList{field.Invalid(path, group, "should be a domain with at least one dot")}
	}
	return nil
}

// oneOf requires value to be one of allowed.
func oneOf(path *field.Path, value string, allowed []string) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	for _, a := range allowed {
		if a == value {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(path, value, allowed)}
}

// missingSchemaErrors: v1 requires a schema for every version; without one,
// pruning would drop every field of a custom resource.
func missingSchemaErrors(spec *apiextensions.CustomResourceDefinitionSpec, path *field.Path) field.ErrorList {
	if spec.Validation != nil && spec.Validation.OpenAPIV3Schema != nil {
		return nil
	}
	var errs field.ErrorList
	for i, v := range spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, field.Required(path.Child("versions").Index(i).Child("schema").Child("openAPIV3Schema"), ""))
		}
	}
	return errs
}

func preservesUnknownFields(spec *apiextensions.CustomResourceDefinitionSpec) bool {
	return spec.PreserveUnknownFields == nil || *spec.PreserveUnknownFields
}

// statusInAnyVersion reports whether the status subresource is on anywhere.
func statusInAnyVersion(spec *apiextensions.CustomResourceDefinitionSpec) bool {
	if spec.Subresources != nil && spec.Subresources.Status != nil {
		return true
	}
	for _, v := range spec.Versions {
		if v.Subresources != nil && v.Subresources.Status != nil {
			return true
		}
	}
	return false
}

// subresourcesOf returns the subresources that apply to version: its own when
// any version has its own, the top-level ones otherwise.
func subresourcesOf(spec *apiextensions.CustomResourceDefinitionSpec, version string) *apiextensions.CustomResourceSubresources {
	if !apiextensions.HasPerVersionSubresources(spec.Versions) {
		return spec.Subresources
	}
	for _, v := range spec.Versions {
		if v.Name == version {
			return v.Subresources
		}
	}
	return nil
}

// immutableSpecErrors: group and plural make up the CRD's name, which never
// changes; kind and scope are fixed once custom resources can exist.
func immutableSpecErrors(spec, old *apiextensions.CustomResourceDefinitionSpec, kindAndScope bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if kindAndScope {
		errs = append(errs, apivalidation.ValidateImmutableField(spec.Scope, old.Scope, path.Child("scope"))...)
		errs = append(errs, apivalidation.ValidateImmutableField(spec.Names.Kind, old.Names.Kind, path.Child("names", "kind"))...)
	}
	errs = append(errs, apivalidation.ValidateImmutableField(spec.Group, old.Group, path.Child("group"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(spec.Names.Plural, old.Names.Plural, path.Child("names", "plural"))...)
	return errs
}
