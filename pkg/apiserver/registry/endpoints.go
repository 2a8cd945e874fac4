//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package registry

// Endpoints (core/v1): the addresses behind a Service, written by the
// endpoint controller. kube 1.33 deprecated the kind in favour of
// EndpointSlices, and every request on it carries that warning.

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// EndpointsDeprecation is the warning kube-apiserver 1.33+ sends with
// every request on v1 Endpoints.
const EndpointsDeprecation = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"

// endpoints is core/v1 endpoints.
func endpoints() *Resource {
	return &Resource{
		Version: "v1", Resource: "endpoints", Kind: "Endpoints", ListKind: "EndpointsList", Singular: "endpoints",
		ShortNames: []string{"ep"}, Namespaced: true,
		New:     func() runtime.Object { return &corev1.Endpoints{} },
		NewList: func() runtime.Object { return &corev1.EndpointsList{} },

		Strategy: endpointsStrategy{},
		Table:    printers.Endpoints,
		Warning:  EndpointsDeprecation,
	}
}

type endpointsStrategy struct{}

// PrepareForCreate defaults each port's protocol to TCP.
func (endpointsStrategy) PrepareForCreate(obj runtime.Object) {
	defaultEndpointPorts(obj.(*corev1.Endpoints))
}

// PrepareForUpdate: every field may be written; ports get their default.
func (endpointsStrategy) PrepareForUpdate(obj, old runtime.Object) {
	defaultEndpointPorts(obj.(*corev1.Endpoints))
}

// Validate checks a new Endpoints object: a DNS subdomain name and valid
// subsets.
func (endpointsStrategy) Validate(obj runtime.Object) field.ErrorList {
	ep := obj.(*corev1.Endpoints)
	errs := ValidateMetaCreate(&ep.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateEndpointSubsets(ep.Subsets, field.NewPath("subsets"))...)
}

// ValidateUpdate checks metadata and the subsets as on create.
func (endpointsStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	ep := obj.(*corev1.Endpoints)
	errs := ValidateMetaUpdate(&ep.ObjectMeta, &old.(*corev1.Endpoints).ObjectMeta)
	return append(errs, validateEndpointSubsets(ep.Subsets, field.NewPath("subsets"))...)
}

func defaultEndpointPorts(ep *corev1.Endpoints) {
	for i := range ep.Subsets {
		for j := range ep.Subsets[i].Ports {
			if p := &ep.Subsets[i].Ports[j]; p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
		}
	}
}

// validateEndpointSubsets follows kube's rules and wording: every subset
// has an address, every address is a usable IP with a valid node name and
// hostname, and every port is valid (named when there are several).
func validateEndpointSubsets(subsets []corev1.EndpointSubset, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range subsets {
		ss, p := &subsets[i], path.Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(p, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j := range ss.Addresses {
			errs = append(errs, validateEndpointAddress(&ss.Addresses[j], p.Child("addresses").Index(j))...)
		}
		for j := range ss.NotReadyAddresses {
			errs = append(errs, validateEndpointAddress(&ss.NotReadyAddresses[j], p.Child("notReadyAddresses").Index(j))...)
		}
		for j := range ss.Ports {
			errs = append(errs, validateEndpointPort(&ss.Ports[j], len(ss.Ports) > 1, p.Child("ports").Index(j))...)
		}
	}
	return errs
}

func validateEndpointAddress(a *corev1.EndpointAddress, path *field.Path) field.ErrorList {
	ipPath := path.Child("ip")
	errs := validation.IsValidIPForLegacyField(ipPath, a.IP, false, nil)
	errs = append(errs, optionalName(path.Child("hostname"), a.Hostname, validation.IsDNS1123Label)...)
	if a.NodeName != nil {
		// An empty node name is invalid here, as in kube (a pod that was
		// never scheduled cannot be an endpoint).
		for _, msg := range validation.IsDNS1123Subdomain(*a.NodeName) {
			errs = append(errs, field.Invalid(path.Child("nodeName"), *a.NodeName, msg))
		}
	}
	return append(errs, validateNonSpecialIP(a.IP, ipPath)...)
}

func validateEndpointPort(p *corev1.EndpointPort, requireName bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if requireName && p.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		errs = append(errs, optionalName(path.Child("name"), p.Name, validation.IsDNS1123Label)...)
	}
	for _, msg := range validation.IsValidPortNum(int(p.Port)) {
		errs = append(errs, field.Invalid(path.Child("port"), p.Port, msg))
	}
	switch {
	case p.Protocol == "":
		errs = append(errs, field.Required(path.Child("protocol"), ""))
	case !slices.Contains(supportedPortProtocols, string(p.Protocol)):
		errs = append(errs, field.NotSupported(path.Child("protocol"), p.Protocol, supportedPortProtocols))
	}
	if p.AppProtocol != nil {
		for _, msg := range validation.IsQualifiedName(*p.AppProtocol) {
			errs = append(errs, field.Invalid(path.Child("appProtocol"), *p.AppProtocol, msg))
		}
	}
	return errs
}
