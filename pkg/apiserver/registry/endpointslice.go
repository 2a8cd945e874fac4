package registry

// EndpointSlices (discovery.k8s.io/v1): the addresses behind a Service in
// slices of at most 1,000, written by the endpointslice controller. A
// slice has a generation that moves with everything but its metadata (and
// with its labels), and its addressType never changes.

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// kube's limits on one slice.
const (
	maxSliceEndpoints = 1000
	maxSlicePorts     = 20000
	maxEndpointAddrs  = 100
)

var supportedAddressTypes = []string{"FQDN", "IPv4", "IPv6"}

// endpointSlices is discovery.k8s.io/v1 endpointslices.
func endpointSlices() *Resource {
	s := endpointSliceStrategy{}
	return &Resource{
		Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Kind: "EndpointSlice",
		ListKind: "EndpointSliceList", Singular: "endpointslice", Namespaced: true,
		New:        func() runtime.Object { return &discoveryv1.EndpointSlice{} },
		NewList:    func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
		Strategy:   s,
		Generation: s.GenerationChanged,
		Table:      printers.EndpointSlices,
	}
}

type endpointSliceStrategy struct{}

// PrepareForCreate applies the port defaults (an empty name, TCP).
func (endpointSliceStrategy) PrepareForCreate(obj runtime.Object) {
	defaultSlicePorts(obj.(*discoveryv1.EndpointSlice))
}

// PrepareForUpdate: every field may be written; ports get their defaults.
func (endpointSliceStrategy) PrepareForUpdate(obj, old runtime.Object) {
	defaultSlicePorts(obj.(*discoveryv1.EndpointSlice))
}

// GenerationChanged: anything outside metadata changed, or the labels did.
func (endpointSliceStrategy) GenerationChanged(obj, old runtime.Object) bool {
	s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
	return s.AddressType != o.AddressType ||
		!apiequality.Semantic.DeepEqual(s.Endpoints, o.Endpoints) ||
		!apiequality.Semantic.DeepEqual(s.Ports, o.Ports) ||
		!apiequality.Semantic.DeepEqual(s.Labels, o.Labels)
}

// Validate checks a new slice, in kube's order: metadata, addressType,
// endpoints, ports.
func (endpointSliceStrategy) Validate(obj runtime.Object) field.ErrorList {
	s := obj.(*discoveryv1.EndpointSlice)
	errs := ValidateMetaCreate(&s.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateEndpointSliceBody(s)...)
}

// ValidateUpdate adds the immutable addressType to the create rules.
func (endpointSliceStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
	errs := ValidateMetaUpdate(&s.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, validateEndpointSliceBody(s)...)
	return append(errs, apimachineryvalidation.ValidateImmutableField(s.AddressType, o.AddressType, field.NewPath("addressType"))...)
}

func defaultSlicePorts(s *discoveryv1.EndpointSlice) {
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Name == nil {
			p.Name = new(string)
		}
		if p.Protocol == nil {
			tcp := corev1.ProtocolTCP
			p.Protocol = &tcp
		}
	}
}

func validateEndpointSliceBody(s *discoveryv1.EndpointSlice) field.ErrorList {
	var errs field.ErrorList
	typePath := field.NewPath("addressType")
	switch {
	case s.AddressType == "":
		errs = append(errs, field.Required(typePath, ""))
	case !slices.Contains(supportedAddressTypes, string(s.AddressType)):
		errs = append(errs, field.NotSupported(typePath, s.AddressType, supportedAddressTypes))
	}
	errs = append(errs, validateSliceEndpoints(s.Endpoints, s.AddressType, field.NewPath("endpoints"))...)
	return append(errs, validateSlicePorts(s.Ports, field.NewPath("ports"))...)
}

func validateSliceEndpoints(eps []discoveryv1.Endpoint, addrType discoveryv1.AddressType, path *field.Path) field.ErrorList {
	if len(eps) > maxSliceEndpoints {
		return field.ErrorList{field.TooMany(path, len(eps), maxSliceEndpoints)}
	}
	var errs field.ErrorList
	for i := range eps {
		ep, p := &eps[i], path.Index(i)
		addrPath := p.Child("addresses")
		switch n := len(ep.Addresses); {
		case n == 0:
			errs = append(errs, field.Required(addrPath, "must contain at least 1 address"))
		case n > maxEndpointAddrs:
			errs = append(errs, field.TooMany(addrPath, n, maxEndpointAddrs))
		}
		for j, addr := range ep.Addresses {
			errs = append(errs, validateSliceAddress(addr, addrType, addrPath, addrPath.Index(j))...)
		}
		if ep.NodeName != nil {
			for _, msg := range validation.IsDNS1123Subdomain(*ep.NodeName) {
				errs = append(errs, field.Invalid(p.Child("nodeName"), *ep.NodeName, msg))
			}
		}
		if ep.Hostname != nil {
			for _, msg := range validation.IsDNS1123Label(*ep.Hostname) {
				errs = append(errs, field.Invalid(p.Child("hostname"), *ep.Hostname, msg))
			}
		}
	}
	return errs
}

// validateSliceAddress checks one address against the slice's type. A
// wrong family is reported on the list's path, as kube does.
func validateSliceAddress(addr string, addrType discoveryv1.AddressType, listPath, path *field.Path) field.ErrorList {
	switch addrType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
		if errs := validation.IsValidIPForLegacyField(path, addr, false, nil); len(errs) > 0 {
			return errs
		}
		var errs field.ErrorList
		if addrType == discoveryv1.AddressTypeIPv4 && !netutils.IsIPv4String(addr) {
			errs = append(errs, field.Invalid(listPath, addr, "must be an IPv4 address"))
		}
		if addrType == discoveryv1.AddressTypeIPv6 && !netutils.IsIPv6String(addr) {
			errs = append(errs, field.Invalid(listPath, addr, "must be an IPv6 address"))
		}
		return append(errs, validateNonSpecialIP(addr, path)...)
	case discoveryv1.AddressTypeFQDN:
		return validation.IsFullyQualifiedDomainName(path, addr)
	}
	return nil // an unknown type is reported once, on addressType
}

func validateSlicePorts(ports []discoveryv1.EndpointPort, path *field.Path) field.ErrorList {
	if len(ports) > maxSlicePorts {
		return field.ErrorList{field.TooMany(path, len(ports), maxSlicePorts)}
	}
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range ports {
		port, p := &ports[i], path.Index(i)
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		errs = append(errs, optionalName(p.Child("name"), name, validation.IsDNS1123Label)...)
		if names[name] {
			errs = append(errs, field.Duplicate(p.Child("name"), name))
		}
		names[name] = true
		switch {
		case port.Protocol == nil:
			errs = append(errs, field.Required(p.Child("protocol"), ""))
		case !slices.Contains(supportedPortProtocols, string(*port.Protocol)):
			errs = append(errs, field.NotSupported(p.Child("protocol"), *port.Protocol, supportedPortProtocols))
		}
		if port.AppProtocol != nil {
			for _, msg := range validation.IsQualifiedName(*port.AppProtocol) {
				errs = append(errs, field.Invalid(p.Child("appProtocol"), *port.AppProtocol, msg))
			}
		}
	}
	return errs
}
