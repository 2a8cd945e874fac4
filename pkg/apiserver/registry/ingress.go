package registry

// Ingresses (networking.k8s.io/v1): HTTP routing rules for an ingress
// controller. None runs here, so status.loadBalancer stays empty unless a
// client writes ingresses/status. Generation moves with the spec.

import (
	"fmt"
	"net"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

const networkingGroup = networkingv1.GroupName

// ingresses is networking.k8s.io/v1 ingresses.
func ingresses() *Resource {
	s := ingressStrategy{}
	return &Resource{
		Group: networkingGroup, Version: "v1", Resource: "ingresses", Kind: "Ingress", ListKind: "IngressList", Singular: "ingress",
		ShortNames: []string{"ing"}, Namespaced: true,
		New:      func() runtime.Object { return &networkingv1.Ingress{} },
		NewList:  func() runtime.Object { return &networkingv1.IngressList{} },
		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Generation: s.GenerationChanged,
		Table:      printers.Ingresses,
	}
}

// ingressClassAnnotation is the older way to pick a class, which must
// agree with spec.ingressClassName when both are set.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

var (
	ingressPathTypes       = []string{"Exact", "ImplementationSpecific", "Prefix"} // sorted, as kube lists them
	invalidIngressPathSeqs = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidIngressPathEnds = []string{"/..", "/."}
)

type ingressStrategy struct{}

// PrepareForCreate clears status.
func (ingressStrategy) PrepareForCreate(obj runtime.Object) {
	obj.(*networkingv1.Ingress).Status = networkingv1.IngressStatus{}
}

// PrepareForUpdate keeps the stored status.
func (ingressStrategy) PrepareForUpdate(obj, old runtime.Object) {
	obj.(*networkingv1.Ingress).Status = old.(*networkingv1.Ingress).Status
}

// PrepareForStatusUpdate keeps the stored spec.
func (ingressStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*networkingv1.Ingress).Spec = old.(*networkingv1.Ingress).Spec
}

// GenerationChanged is true when the spec changed.
func (ingressStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*networkingv1.Ingress).Spec, old.(*networkingv1.Ingress).Spec)
}

// Validate checks a new Ingress, and that the class annotation agrees
// with ingressClassName.
func (ingressStrategy) Validate(obj runtime.Object) field.ErrorList {
	ing := obj.(*networkingv1.Ingress)
	errs := ValidateMetaCreate(&ing.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	errs = append(errs, validateIngressSpec(&ing.Spec)...)
	if v, ok := ing.Annotations[ingressClassAnnotation]; ok && ing.Spec.IngressClassName != nil && v != *ing.Spec.IngressClassName {
		errs = append(errs, field.Invalid(field.NewPath("annotations").Child(ingressClassAnnotation), v, "must match `ingressClassName` when both are specified"))
	}
	return errs
}

// ValidateUpdate checks metadata and the spec.
func (ingressStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	ing := obj.(*networkingv1.Ingress)
	errs := ValidateMetaUpdate(&ing.ObjectMeta, &old.(*networkingv1.Ingress).ObjectMeta)
	return append(errs, validateIngressSpec(&ing.Spec)...)
}

// ValidateStatusUpdate checks the load balancer addresses a controller
// reports.
func (ingressStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	ing := obj.(*networkingv1.Ingress)
	errs := ValidateMetaUpdate(&ing.ObjectMeta, &old.(*networkingv1.Ingress).ObjectMeta)
	path := field.NewPath("status", "loadBalancer", "ingress")
	for i, lb := range ing.Status.LoadBalancer.Ingress {
		p := path.Index(i)
		if lb.IP != "" {
			errs = append(errs, validation.IsValidIPForLegacyField(p.Child("ip"), lb.IP, false, nil)...)
		}
		if lb.Hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(lb.Hostname) {
				errs = append(errs, field.Invalid(p.Child("hostname"), lb.Hostname, msg))
			}
			if net.ParseIP(lb.Hostname) != nil {
				errs = append(errs, field.Invalid(p.Child("hostname"), lb.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

func validateIngressSpec(spec *networkingv1.IngressSpec) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, field.Invalid(specPath, spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(spec.DefaultBackend, specPath.Child("defaultBackend"))...)
	}
	for i, rule := range spec.Rules {
		errs = append(errs, validateIngressRule(&rule, specPath.Child("rules").Index(i))...)
	}
	for i, tls := range spec.TLS {
		p := specPath.Child("tls").Index(i)
		for j, host := range tls.Hosts {
			errs = append(errs, validateIngressHost(host, p.Child("hosts").Index(j))...)
		}
		if tls.SecretName != "" {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(tls.SecretName, false) {
				errs = append(errs, field.Invalid(p.Child("secretName"), tls.SecretName, msg))
			}
		}
	}
	if spec.IngressClassName != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*spec.IngressClassName, false) {
			errs = append(errs, field.Invalid(specPath.Child("ingressClassName"), *spec.IngressClassName, msg))
		}
	}
	return errs
}

// validateIngressHost allows a leading wildcard label (*.example.com).
func validateIngressHost(host string, p *field.Path) field.ErrorList {
	check := validation.IsDNS1123Subdomain
	if strings.Contains(host, "*") {
		check = validation.IsWildcardDNS1123Subdomain
	}
	var errs field.ErrorList
	for _, msg := range check(host) {
		errs = append(errs, field.Invalid(p, host, msg))
	}
	return errs
}

func validateIngressRule(rule *networkingv1.IngressRule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if rule.Host != "" {
		if net.ParseIP(rule.Host) != nil {
			errs = append(errs, field.Invalid(p.Child("host"), rule.Host, "must be a DNS name, not an IP address"))
		}
		errs = append(errs, validateIngressHost(rule.Host, p.Child("host"))...)
	}
	if rule.HTTP == nil {
		return errs
	}
	paths := p.Child("http", "paths")
	if len(rule.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(paths, ""))
	}
	for i := range rule.HTTP.Paths {
		errs = append(errs, validateIngressPath(&rule.HTTP.Paths[i], paths.Index(i))...)
	}
	return errs
}

func validateIngressPath(path *networkingv1.HTTPIngressPath, p *field.Path) field.ErrorList {
	if path.PathType == nil {
		return field.ErrorList{field.Required(p.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	switch *path.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(p.Child("path"), path.Path, "must be an absolute path"))
		}
		for _, seq := range invalidIngressPathSeqs {
			if strings.Contains(path.Path, seq) {
				errs = append(errs, field.Invalid(p.Child("path"), path.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, end := range invalidIngressPathEnds {
			if strings.HasSuffix(path.Path, end) {
				errs = append(errs, field.Invalid(p.Child("path"), path.Path, fmt.Sprintf("cannot end with '%s'", end)))
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if path.Path != "" && !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(p.Child("path"), path.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("pathType"), *path.PathType, ingressPathTypes))
	}
	return append(errs, validateIngressBackend(&path.Backend, p.Child("backend"))...)
}

// validateIngressBackend wants exactly one of a service (with a port name
// or number) and a typed resource reference.
func validateIngressBackend(b *networkingv1.IngressBackend, p *field.Path) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(p, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		return validateTypedLocalRef(b.Resource.APIGroup, b.Resource.Kind, b.Resource.Name, p.Child("resource"))
	case b.Service == nil:
		return field.ErrorList{field.Invalid(p, "", "resource or service backend is required")}
	}
	var errs field.ErrorList
	svc := b.Service
	if svc.Name == "" {
		errs = append(errs, field.Required(p.Child("service", "name"), ""))
	} else {
		// kube 1.37 accepts any DNS label as the Service name
		// (RelaxedServiceNameValidation).
		for _, msg := range apimachineryvalidation.NameIsDNSLabel(svc.Name, false) {
			errs = append(errs, field.Invalid(p.Child("service", "name"), svc.Name, msg))
		}
	}
	port := p.Child("service", "port")
	switch {
	case svc.Port.Name != "" && svc.Port.Number != 0:
		errs = append(errs, field.Invalid(p, "", "cannot set both port name & port number"))
	case svc.Port.Name != "":
		for _, msg := range validation.IsValidPortName(svc.Port.Name) {
			errs = append(errs, field.Invalid(port.Child("name"), svc.Port.Name, msg))
		}
	case svc.Port.Number != 0:
		for _, msg := range validation.IsValidPortNum(int(svc.Port.Number)) {
			errs = append(errs, field.Invalid(port.Child("number"), svc.Port.Number, msg))
		}
	default:
		errs = append(errs, field.Required(p, "port name or number is required"))
	}
	return errs
}
