package registry

// How a Service's clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy are
// filled in before allocation, as kube-apiserver's Service storage does:
// the plural follows the singular, an update keeps what the client left
// out, and the families and policy are set for this (single-stack)
// cluster.

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// normalizeClusterIPs keeps clusterIP and clusterIPs in step for clients
// that set only the singular (old is nil on create).
func normalizeClusterIPs(svc, old *corev1.Service) {
	spec := &svc.Spec
	if old == nil {
		if spec.ClusterIP != "" && len(spec.ClusterIPs) == 0 {
			spec.ClusterIPs = []string{spec.ClusterIP}
		}
		return
	}
	// A client that knows only the singular sent no plural.
	if len(old.Spec.ClusterIPs) > 0 && len(spec.ClusterIPs) == 0 && old.Spec.ClusterIP == spec.ClusterIP {
		spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if old.Spec.ClusterIP != spec.ClusterIP {
		samePlural := slices.Equal(old.Spec.ClusterIPs, spec.ClusterIPs)
		if old.Spec.ClusterIP != "" && spec.ClusterIP == "" && samePlural {
			spec.ClusterIPs = nil
		}
		if spec.ClusterIP != "" && samePlural {
			spec.ClusterIPs = []string{spec.ClusterIP}
		}
	}
}

// patchAllocatedValues copies into an update the allocated values the
// client left out (a PUT of what it once sent), where both versions use
// them.
func patchAllocatedValues(svc, old *corev1.Service) {
	spec, was := &svc.Spec, &old.Spec
	if needsClusterIP(old) && needsClusterIP(svc) {
		if spec.ClusterIP == "" {
			spec.ClusterIP = was.ClusterIP
		}
		if len(spec.ClusterIPs) == 0 && len(was.ClusterIPs) > 0 {
			spec.ClusterIPs = was.ClusterIPs
		}
	}
	if needsNodePorts(old) && needsNodePorts(svc) {
		inNew := map[int32]bool{}
		for _, p := range spec.Ports {
			inNew[p.NodePort] = true
		}
		byName := map[string]int32{}
		for _, p := range was.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range spec.Ports {
			p := &spec.Ports[i]
			// An old value another port of the new spec uses stays there.
			if np := byName[p.Name]; p.NodePort == 0 && !inNew[np] {
				p.NodePort = np
			}
		}
	}
	if needsHealthCheck(old) && needsHealthCheck(svc) && spec.HealthCheckNodePort == 0 {
		spec.HealthCheckNodePort = was.HealthCheckNodePort
	}
}

// initIPFamilyFields sets ipFamilyPolicy and ipFamilies and checks them
// and the ClusterIPs against this cluster's single IP family, before
// anything is allocated (old is nil on create).
func (a *serviceAllocations) initIPFamilyFields(svc, old *corev1.Service) error {
	spec := &svc.Spec
	if spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if spec.IPFamilyPolicy == nil {
		policy := corev1.IPFamilyPolicySingleStack
		switch {
		case old != nil && old.Spec.IPFamilyPolicy != nil:
			policy = *old.Spec.IPFamilyPolicy
		case isHeadless(svc) && len(spec.Selector) == 0:
			policy = corev1.IPFamilyPolicyRequireDualStack
		}
		spec.IPFamilyPolicy = &policy
	}
	if errs := validateClusterIPFields(svc); len(errs) > 0 {
		return invalidService(svc, errs...)
	}
	policyPath := specPath.Child("ipFamilyPolicy")
	single := *spec.IPFamilyPolicy == corev1.IPFamilyPolicySingleStack
	var errs field.ErrorList
	if old != nil {
		switch {
		case single:
			if slices.Equal(old.Spec.ClusterIPs, spec.ClusterIPs) && len(spec.ClusterIPs) > 1 {
				spec.ClusterIPs = spec.ClusterIPs[:1]
			}
			if slices.Equal(old.Spec.IPFamilies, spec.IPFamilies) && len(spec.IPFamilies) > 1 {
				spec.IPFamilies = spec.IPFamilies[:1]
			}
		default:
			if n := len(spec.ClusterIPs); n > 0 && n < len(old.Spec.ClusterIPs) {
				errs = append(errs, field.Invalid(policyPath, spec.IPFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"))
			}
			if n := len(spec.IPFamilies); n > 0 && n < len(old.Spec.IPFamilies) {
				errs = append(errs, field.Invalid(policyPath, spec.IPFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"))
			}
		}
	}
	if single && len(spec.ClusterIPs) == 2 {
		errs = append(errs, field.Invalid(policyPath, spec.IPFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
	}
	if single && len(spec.IPFamilies) == 2 {
		errs = append(errs, field.Invalid(policyPath, spec.IPFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
	}
	// The families follow the requested addresses.
	for i, ip := range spec.ClusterIPs {
		if ip == corev1.ClusterIPNone {
			break
		}
		if i < len(spec.IPFamilies) {
			continue
		}
		if fam := familyOf(ip); fam != a.family {
			errs = append(errs, field.Invalid(clusterIPsPath.Index(i), spec.ClusterIPs, fmt.Sprintf("%s is not configured on this cluster", fam)))
		} else {
			spec.IPFamilies = append(spec.IPFamilies, fam)
		}
	}
	if len(errs) > 0 {
		return invalidService(svc, errs...)
	}
	if isHeadless(svc) && len(spec.Selector) == 0 {
		// Headless without a selector may name both families even here.
		if len(spec.IPFamilies) == 0 {
			spec.IPFamilies = []corev1.IPFamily{a.family}
		}
		if len(spec.IPFamilies) < 2 && !single {
			spec.IPFamilies = append(spec.IPFamilies, otherFamily(spec.IPFamilies[0]))
		}
		return nil
	}
	if *spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
		errs = append(errs, field.Invalid(policyPath, spec.IPFamilyPolicy, "this cluster is not configured for dual-stack services"))
	}
	for i, fam := range spec.IPFamilies {
		if fam != a.family {
			errs = append(errs, field.Invalid(specPath.Child("ipFamilies").Index(i), fam, "not configured on this cluster"))
		}
	}
	if len(errs) > 0 {
		return invalidService(svc, errs...)
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = []corev1.IPFamily{a.family}
	}
	return nil
}

func otherFamily(f corev1.IPFamily) corev1.IPFamily {
	if f == corev1.IPv4Protocol {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}
