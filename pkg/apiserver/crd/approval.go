package crd

import (
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// apiApprovalErrors: groups under k8s.io and kubernetes.io belong to the
// Kubernetes project, and a CRD there must carry the api-approved annotation
// (a URL of the approving review, or a reason starting "unapproved"). An update
// that leaves the annotation's state as it was is never refused for it.
func apiApprovalErrors(crd, old *apiextensions.CustomResourceDefinition) field.ErrorList {
	if !apihelpers.IsProtectedCommunityGroup(crd.Spec.Group) {
		return nil
	}
	state, reason := apihelpers.GetAPIApprovalState(crd.Annotations)
	if old != nil {
		if oldState, _ := apihelpers.GetAPIApprovalState(old.Annotations); oldState == state {
			return nil
		}
	}
	path := field.NewPath("metadata", "annotations").Key(apiextensionsv1.KubeAPIApprovedAnnotation)
	switch state {
	case apihelpers.APIApproved, apihelpers.APIApprovalBypassed:
		return nil
	case apihelpers.APIApprovalMissing:
		return field.ErrorList{field.Required(path, reason)}
	default:
		return field.ErrorList{field.Invalid(path, crd.Annotations[apiextensionsv1.KubeAPIApprovedAnnotation], reason)}
	}
}

// preserveUnknownFieldsErrors: v1 turns pruning on for good; keeping unknown
// fields is said per schema node with x-kubernetes-preserve-unknown-fields. Only
// a CRD stored with the old setting may keep it.
func preserveUnknownFieldsErrors(crd, old *apiextensions.CustomResourceDefinition) field.ErrorList {
	if old != nil && old.Spec.PreserveUnknownFields != nil && *old.Spec.PreserveUnknownFields {
		return nil
	}
	if p := crd.Spec.PreserveUnknownFields; p != nil && *p {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "preserveUnknownFields"), p, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")}
	}
	return nil
}
