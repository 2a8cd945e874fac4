package crd

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a CustomResourceDefinition about to be created (after
// SetDefaults and PrepareForCreate) and returns kube-apiserver's errors for it.
func Validate(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	in, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{err}
	}
	r := rulesForCreate()
	errs := apivalidation.ValidateObjectMeta(&in.ObjectMeta, false, nameRule(&in.Spec), field.NewPath("metadata"))
	errs = append(errs, r.spec(&in.Spec, field.NewPath("spec"))...)
	errs = append(errs, wholeObjectErrors(in, nil)...)
	return errs
}

// ValidateUpdate checks an update of a CustomResourceDefinition (after SetDefaults
// and PrepareForUpdate) against the stored object old.
func ValidateUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	in, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{err}
	}
	oldIn, err := toInternal(old)
	if err != nil {
		return field.ErrorList{err}
	}
	r := rulesForUpdate(in, oldIn)
	specPath := field.NewPath("spec")
	errs := apivalidation.ValidateObjectMetaUpdate(&in.ObjectMeta, &oldIn.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, r.spec(&in.Spec, specPath)...)
	errs = append(errs, immutableSpecErrors(&in.Spec, &oldIn.Spec, r.immutableKindAndScope, specPath)...)
	errs = append(errs, wholeObjectErrors(in, oldIn)...)
	return errs
}

// toInternal converts to apiextensions' internal form, the form kube-apiserver
// validates: a schema, subresources or columns that all versions share move to
// the top level, and values in messages print as kube prints them.
func toInternal(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, *field.Error) {
	out := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, out, nil); err != nil {
		return nil, field.InternalError(field.NewPath("spec"), fmt.Errorf("converting to the internal version: %w", err))
	}
	return out, nil
}

// nameRule is the metadata.name check: a DNS subdomain that is exactly
// <spec.names.plural>.<spec.group>, the name the resource is served under.
func nameRule(spec *apiextensions.CustomResourceDefinitionSpec) apivalidation.ValidateNameFunc {
	return func(name string, prefix bool) []string {
		msgs := apivalidation.NameIsDNSSubdomain(name, prefix)
		if name != spec.Names.Plural+"."+spec.Group {
			msgs = append(msgs, `must be spec.names.plural+"."+spec.group`)
		}
		return msgs
	}
}

// wholeObjectErrors are the checks kube runs after the spec's, on create and
// update alike: accepted names, stored versions, the API approval of protected
// groups, and preserveUnknownFields.
func wholeObjectErrors(crd, old *apiextensions.CustomResourceDefinition) field.ErrorList {
	statusPath := field.NewPath("status")
	errs := namesErrors(&crd.Status.AcceptedNames, statusPath.Child("acceptedNames"))
	errs = append(errs, storedVersionsErrors(crd.Status.StoredVersions, crd.Spec.Versions, statusPath.Child("storedVersions"))...)
	errs = append(errs, apiApprovalErrors(crd, old)...)
	errs = append(errs, preserveUnknownFieldsErrors(crd, old)...)
	return errs
}

// ValidateStatusUpdate checks a write to the /status subresource (by the
// controller that accepts names and sets conditions): metadata may not change
// what is immutable, and accepted names must be valid names.
func ValidateStatusUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	in, err := toInternal(crd)
	if err != nil {
		return field.ErrorList{err}
	}
	oldIn, err := toInternal(old)
	if err != nil {
		return field.ErrorList{err}
	}
	errs := apivalidation.ValidateObjectMetaUpdate(&in.ObjectMeta, &oldIn.ObjectMeta, field.NewPath("metadata"))
	return append(errs, namesErrors(&in.Status.AcceptedNames, field.NewPath("status", "acceptedNames"))...)
}
