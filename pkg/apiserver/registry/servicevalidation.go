package registry

// Service validation with kube-apiserver's field paths and messages, in
// its order (ValidateService, ValidateServiceUpdate).

import (
	"fmt"
	"net"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	supportedServiceTypes      = []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}
	supportedSessionAffinities = []string{"ClientIP", "None"}
	supportedPortProtocols     = []string{"SCTP", "TCP", "UDP"}
	supportedIPFamilies        = []string{"IPv4", "IPv6"}
	supportedIPFamilyPolicies  = []string{"PreferDualStack", "RequireDualStack", "SingleStack"}
	supportedTrafficPolicies   = []string{"Cluster", "Local"}
)

// maxClientIPAffinitySeconds is the longest ClientIP session affinity.
const maxClientIPAffinitySeconds = 86400

// servicePortKey is the value kube-apiserver prints in a duplicate-port
// error: its internal ServicePort, whose fields have no JSON names, with
// only the protocol and port set.
type servicePortKey struct {
	Name        string
	Protocol    corev1.Protocol
	AppProtocol *string
	Port        int32
	TargetPort  intstr.IntOrString
	NodePort    int32
}

var (
	portsPath      = specPath.Child("ports")
	clusterIPsPath = specPath.Child("clusterIPs")
)

// validateService checks a new Service.
func validateService(svc *corev1.Service) field.ErrorList {
	errs := ValidateMetaCreate(&svc.ObjectMeta, true, apimachineryvalidation.NameIsDNS1035Label)
	return append(errs, validateServiceSpec(svc)...)
}

// validateServiceUpdate checks an update: the ClusterIPs and IP families
// may not change, a loadBalancerClass is immutable, and the new spec must
// be valid.
func validateServiceUpdate(svc, old *corev1.Service) field.ErrorList {
	errs := ValidateMetaUpdate(&svc.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validateClusterIPsUpdate(svc, old)...)
	errs = append(errs, validateIPFamiliesUpdate(svc, old)...)
	errs = append(errs, validateLoadBalancerClassUpdate(svc, old)...)
	return append(errs, validateServiceSpec(svc)...)
}

// validateServiceSpec is kube's ValidateService after the metadata.
func validateServiceSpec(svc *corev1.Service) field.ErrorList {
	spec := &svc.Spec
	var errs field.ErrorList
	if len(spec.Ports) == 0 && !isHeadless(svc) && spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(portsPath, ""))
	}
	errs = append(errs, validateServiceTypeFields(svc)...)
	names := map[string]bool{}
	for i := range spec.Ports {
		errs = append(errs, validateServicePort(&spec.Ports[i], len(spec.Ports) > 1, names, portsPath.Index(i))...)
	}
	if spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(spec.Selector, specPath.Child("selector"))...)
	}
	errs = append(errs, validateSessionAffinity(spec)...)
	errs = append(errs, validateClusterIPFields(svc)...)
	for i, ip := range spec.ExternalIPs {
		p := specPath.Child("externalIPs").Index(i)
		if e := validation.IsValidIPForLegacyField(p, ip, false, nil); len(e) > 0 {
			errs = append(errs, e...)
		} else {
			errs = append(errs, validateNonSpecialIP(ip, p)...)
		}
	}
	switch {
	case spec.Type == "":
		errs = append(errs, field.Required(specPath.Child("type"), ""))
	case !slices.Contains(supportedServiceTypes, string(spec.Type)):
		errs = append(errs, field.NotSupported(specPath.Child("type"), spec.Type, supportedServiceTypes))
	}
	errs = append(errs, validatePortUniqueness(svc)...)
	errs = append(errs, validateLoadBalancerFields(svc)...)
	errs = append(errs, validateTrafficPolicies(svc)...)
	return errs
}

// validateServiceTypeFields checks what each type forbids or requires.
func validateServiceTypeFields(svc *corev1.Service) field.ErrorList {
	spec := &svc.Spec
	var errs field.ErrorList
	switch spec.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if isHeadless(svc) {
			errs = append(errs, field.Invalid(specPath.Child("clusterIP"), spec.ClusterIP,
				fmt.Sprintf("may not be set to 'None' for %s services", spec.Type)))
		}
	case corev1.ServiceTypeExternalName:
		if len(spec.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(clusterIPsPath, "may not be set for ExternalName services"))
		}
		if len(spec.IPFamilies) > 0 {
			errs = append(errs, field.Forbidden(specPath.Child("ipFamilies"), "may not be set for ExternalName services"))
		}
		if spec.IPFamilyPolicy != nil {
			errs = append(errs, field.Forbidden(specPath.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
		// A trailing dot marks the name fully qualified.
		if cname := strings.TrimSuffix(spec.ExternalName, "."); cname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(cname) {
				errs = append(errs, field.Invalid(specPath.Child("externalName"), cname, msg))
			}
		} else {
			errs = append(errs, field.Required(specPath.Child("externalName"), ""))
		}
	}
	return errs
}

// validateServicePort checks one port; names must be unique and, with
// several ports, set.
func validateServicePort(p *corev1.ServicePort, requireName bool, names map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case requireName && p.Name == "":
		errs = append(errs, field.Required(path.Child("name"), ""))
	case p.Name != "":
		for _, msg := range validation.IsDNS1123Label(p.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), p.Name, msg))
		}
		if names[p.Name] {
			errs = append(errs, field.Duplicate(path.Child("name"), p.Name))
		}
		names[p.Name] = true
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
	errs = append(errs, validatePortNumOrName(p.TargetPort, path.Child("targetPort"))...)
	if p.AppProtocol != nil {
		for _, msg := range validation.IsQualifiedName(*p.AppProtocol) {
			errs = append(errs, field.Invalid(path.Child("appProtocol"), *p.AppProtocol, msg))
		}
	}
	return errs
}

// validatePortNumOrName checks a targetPort: a port number or a port name.
func validatePortNumOrName(port intstr.IntOrString, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.String {
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(path, port.StrVal, msg))
		}
		return errs
	}
	for _, msg := range validation.IsValidPortNum(port.IntValue()) {
		errs = append(errs, field.Invalid(path, port.IntValue(), msg))
	}
	return errs
}

// validateSessionAffinity checks sessionAffinity and its config.
func validateSessionAffinity(spec *corev1.ServiceSpec) field.ErrorList {
	path := specPath.Child("sessionAffinity")
	configPath := specPath.Child("sessionAffinityConfig")
	switch {
	case spec.SessionAffinity == "":
		return field.ErrorList{field.Required(path, "")}
	case !slices.Contains(supportedSessionAffinities, string(spec.SessionAffinity)):
		return field.ErrorList{field.NotSupported(path, spec.SessionAffinity, supportedSessionAffinities)}
	case spec.SessionAffinity == corev1.ServiceAffinityNone:
		if spec.SessionAffinityConfig != nil {
			return field.ErrorList{field.Forbidden(configPath, "must not be set when session affinity is None")}
		}
		return nil
	}
	why := "when session affinity type is ClientIP"
	c := spec.SessionAffinityConfig
	switch {
	case c == nil:
		return field.ErrorList{field.Required(configPath, why)}
	case c.ClientIP == nil:
		return field.ErrorList{field.Required(configPath.Child("clientIP"), why)}
	case c.ClientIP.TimeoutSeconds == nil:
		return field.ErrorList{field.Required(configPath.Child("clientIP", "timeoutSeconds"), why)}
	}
	if t := *c.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySeconds {
		return field.ErrorList{field.Invalid(configPath.Child("clientIP", "timeoutSeconds"), t,
			fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds))}
	}
	return nil
}

// validateNonSpecialIP refuses external IPs no node could answer on.
func validateNonSpecialIP(s string, path *field.Path) field.ErrorList {
	ip := net.ParseIP(s)
	if ip == nil {
		return nil // reported by the format check; leading zeros land here
	}
	var errs field.ErrorList
	if ip.IsUnspecified() {
		errs = append(errs, field.Invalid(path, s, fmt.Sprintf("may not be unspecified (%v)", s)))
	}
	if ip.IsLoopback() {
		errs = append(errs, field.Invalid(path, s, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, field.Invalid(path, s, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, field.Invalid(path, s, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

// validatePortUniqueness: no nodePort under ClusterIP, and no
// protocol+nodePort or protocol+port twice.
func validatePortUniqueness(svc *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	ports := svc.Spec.Ports
	if svc.Spec.Type == corev1.ServiceTypeClusterIP {
		for i := range ports {
			if ports[i].NodePort != 0 {
				errs = append(errs, field.Forbidden(portsPath.Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	nodePorts := map[servicePortKey]bool{}
	for i, p := range ports {
		if p.NodePort == 0 {
			continue
		}
		key := servicePortKey{Protocol: p.Protocol, NodePort: p.NodePort}
		if nodePorts[key] {
			errs = append(errs, field.Duplicate(portsPath.Index(i).Child("nodePort"), p.NodePort))
		}
		nodePorts[key] = true
	}
	seen := map[servicePortKey]bool{}
	for i, p := range ports {
		key := servicePortKey{Protocol: p.Protocol, Port: p.Port}
		if seen[key] {
			errs = append(errs, field.Duplicate(portsPath.Index(i), key))
		}
		seen[key] = true
	}
	return errs
}

// validateLoadBalancerFields: fields only a LoadBalancer may have.
func validateLoadBalancerFields(svc *corev1.Service) field.ErrorList {
	spec := &svc.Spec
	lb := spec.Type == corev1.ServiceTypeLoadBalancer
	var errs field.ErrorList
	if len(spec.LoadBalancerSourceRanges) > 0 {
		// kube-apiserver's path has the capital L.
		path := specPath.Child("LoadBalancerSourceRanges")
		if !lb {
			errs = append(errs, field.Forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
		}
		for i, v := range spec.LoadBalancerSourceRanges {
			errs = append(errs, validation.IsValidCIDRForLegacyField(path.Index(i), strings.TrimSpace(v), false, nil)...)
		}
	}
	if spec.AllocateLoadBalancerNodePorts != nil && !lb {
		errs = append(errs, field.Forbidden(specPath.Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	if lb && spec.AllocateLoadBalancerNodePorts == nil {
		// kube-apiserver's path lacks "spec".
		errs = append(errs, field.Required(field.NewPath("allocateLoadBalancerNodePorts"), ""))
	}
	if c := spec.LoadBalancerClass; c != nil {
		path := specPath.Child("loadBalancerClass")
		if !lb {
			errs = append(errs, field.Forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
		} else {
			for _, msg := range validation.IsQualifiedName(*c) {
				errs = append(errs, field.Invalid(path, *c, msg))
			}
		}
	}
	return errs
}

// validateTrafficPolicies checks the external and internal traffic
// policies and the health check NodePort.
func validateTrafficPolicies(svc *corev1.Service) field.ErrorList {
	spec := &svc.Spec
	var errs field.ErrorList
	etp := specPath.Child("externalTrafficPolicy")
	switch {
	case !externallyAccessible(svc) && spec.ExternalTrafficPolicy != "":
		errs = append(errs, field.Invalid(etp, spec.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
	case externallyAccessible(svc) && spec.ExternalTrafficPolicy == "":
		errs = append(errs, field.Required(etp, ""))
	case externallyAccessible(svc) && !slices.Contains(supportedTrafficPolicies, string(spec.ExternalTrafficPolicy)):
		errs = append(errs, field.NotSupported(etp, spec.ExternalTrafficPolicy, supportedTrafficPolicies))
	}
	hc := specPath.Child("healthCheckNodePort")
	switch {
	case !needsHealthCheck(svc) && spec.HealthCheckNodePort != 0:
		errs = append(errs, field.Invalid(hc, spec.HealthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	case needsHealthCheck(svc) && spec.HealthCheckNodePort == 0:
		errs = append(errs, field.Required(hc, ""))
	case needsHealthCheck(svc):
		for _, msg := range validation.IsValidPortNum(int(spec.HealthCheckNodePort)) {
			errs = append(errs, field.Invalid(hc, spec.HealthCheckNodePort, msg))
		}
	}
	itp := specPath.Child("internalTrafficPolicy")
	switch p := spec.InternalTrafficPolicy; {
	case p == nil && needsClusterIP(svc) && slices.Contains(supportedServiceTypes, string(spec.Type)):
		errs = append(errs, field.Required(itp, ""))
	case p != nil && !slices.Contains(supportedTrafficPolicies, string(*p)):
		errs = append(errs, field.NotSupported(itp, *p, supportedTrafficPolicies))
	}
	return errs
}
