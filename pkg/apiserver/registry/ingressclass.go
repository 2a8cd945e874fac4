package registry

// IngressClasses (networking.k8s.io/v1): which controller serves the
// Ingresses of a class, and where its parameters live. The controller
// never changes; a parameters reference is cluster-scoped unless it says
// otherwise.

import (
	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// ingressClasses is networking.k8s.io/v1 ingressclasses.
func ingressClasses() *Resource {
	s := ingressClassStrategy{}
	return &Resource{
		Group: networkingGroup, Version: "v1", Resource: "ingressclasses", Kind: "IngressClass", ListKind: "IngressClassList", Singular: "ingressclass",
		New:        func() runtime.Object { return &networkingv1.IngressClass{} },
		NewList:    func() runtime.Object { return &networkingv1.IngressClassList{} },
		Strategy:   s,
		Generation: s.GenerationChanged,
		Table:      printers.IngressClasses,
	}
}

// maxIngressClassControllerLen is kube's limit on spec.controller.
const maxIngressClassControllerLen = 250

// ingressClassScopes are the scopes a parameters reference may have,
// sorted as kube lists them.
var ingressClassScopes = []string{networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}

type ingressClassStrategy struct{}

// PrepareForCreate applies kube's default: parameters are cluster-scoped.
func (ingressClassStrategy) PrepareForCreate(obj runtime.Object) {
	if p := obj.(*networkingv1.IngressClass).Spec.Parameters; p != nil && p.Scope == nil {
		scope := networkingv1.IngressClassParametersReferenceScopeCluster
		p.Scope = &scope
	}
}

// PrepareForUpdate applies the same default.
func (s ingressClassStrategy) PrepareForUpdate(obj, old runtime.Object) { s.PrepareForCreate(obj) }

// GenerationChanged is true when the spec changed.
func (ingressClassStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*networkingv1.IngressClass).Spec, old.(*networkingv1.IngressClass).Spec)
}

// Validate checks the name and the spec.
func (ingressClassStrategy) Validate(obj runtime.Object) field.ErrorList {
	c := obj.(*networkingv1.IngressClass)
	errs := ValidateMetaCreate(&c.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateIngressClassSpec(&c.Spec)...)
}

// ValidateUpdate adds the unchanged controller, in kube's order.
func (ingressClassStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	c, o := obj.(*networkingv1.IngressClass), old.(*networkingv1.IngressClass)
	errs := ValidateMetaUpdate(&c.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(c.Spec.Controller, o.Spec.Controller, specPath.Child("controller"))...)
	return append(errs, validateIngressClassSpec(&c.Spec)...)
}

func validateIngressClassSpec(spec *networkingv1.IngressClassSpec) field.ErrorList {
	var errs field.ErrorList
	controller := specPath.Child("controller")
	if spec.Controller == "" {
		errs = append(errs, field.Required(controller, ""))
	} else {
		if len(spec.Controller) > maxIngressClassControllerLen {
			errs = append(errs, field.TooLong(controller, "", maxIngressClassControllerLen))
		}
		errs = append(errs, validation.IsDomainPrefixedPath(controller, spec.Controller)...)
	}
	if p := spec.Parameters; p != nil {
		errs = append(errs, validateIngressClassParameters(p, specPath.Child("parameters"))...)
	}
	return errs
}

func validateIngressClassParameters(p *networkingv1.IngressClassParametersReference, path *field.Path) field.ErrorList {
	errs := validateTypedLocalRef(p.APIGroup, p.Kind, p.Name, path)
	if p.Scope == nil {
		return append(errs, field.Required(path.Child("scope"), ""))
	}
	switch *p.Scope {
	case networkingv1.IngressClassParametersReferenceScopeNamespace:
		if p.Namespace == nil {
			return append(errs, field.Required(path.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		}
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(*p.Namespace, false) {
			errs = append(errs, field.Invalid(path.Child("namespace"), *p.Namespace, msg))
		}
	case networkingv1.IngressClassParametersReferenceScopeCluster:
		if p.Namespace != nil {
			errs = append(errs, field.Forbidden(path.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("scope"), *p.Scope, ingressClassScopes))
	}
	return errs
}

// validateTypedLocalRef checks a reference to an object by API group,
// kind and name (an Ingress resource backend, IngressClass parameters).
func validateTypedLocalRef(group *string, kind, name string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if group != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*group) {
			errs = append(errs, field.Invalid(path.Child("apiGroup"), *group, msg))
		}
	}
	errs = append(errs, pathSegment(path.Child("kind"), kind)...)
	return append(errs, pathSegment(path.Child("name"), name)...)
}

// pathSegment requires a value that can be one segment of a URL path.
func pathSegment(p *field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range content.IsPathSegmentName(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}
