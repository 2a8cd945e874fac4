package registry

// The clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy fields of a
// Service, validated together as kube-apiserver does.

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateClusterIPFields is kube's ValidateServiceClusterIPsRelatedFields:
// clusterIP and clusterIPs agree, the addresses and families are valid,
// at most one address per family, each address of its family.
func validateClusterIPFields(svc *corev1.Service) field.ErrorList {
	spec := &svc.Spec
	if spec.Type == corev1.ServiceTypeExternalName {
		return nil // checked with the type
	}
	var errs field.ErrorList
	if spec.ClusterIP != "" {
		if len(spec.ClusterIPs) == 0 {
			errs = append(errs, field.Required(clusterIPsPath, ""))
		} else if spec.ClusterIPs[0] != spec.ClusterIP {
			errs = append(errs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "first value must match `clusterIP`"))
		}
	} else if len(spec.ClusterIPs) != 0 {
		errs = append(errs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "must be empty when `clusterIP` is not specified"))
	}
	familiesPath := specPath.Child("ipFamilies")
	seen := map[corev1.IPFamily]bool{}
	for i, f := range spec.IPFamilies {
		if !slices.Contains(supportedIPFamilies, string(f)) {
			errs = append(errs, field.NotSupported(familiesPath.Index(i), f, supportedIPFamilies))
		}
		if seen[f] {
			errs = append(errs, field.Duplicate(familiesPath.Index(i), f))
		}
		seen[f] = true
	}
	if p := spec.IPFamilyPolicy; p != nil && !slices.Contains(supportedIPFamilyPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(specPath.Child("ipFamilyPolicy"), p, supportedIPFamilyPolicies))
	}
	badIPs := false
	for i, ip := range spec.ClusterIPs {
		if i == 0 && ip == corev1.ClusterIPNone {
			if len(spec.ClusterIPs) > 1 {
				badIPs = true
				errs = append(errs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "'None' must be the first and only value"))
			}
			continue
		}
		e := validation.IsValidIPForLegacyField(clusterIPsPath.Index(i), ip, false, nil)
		badIPs = badIPs || len(e) > 0
		errs = append(errs, e...)
	}
	if len(spec.ClusterIPs) > 2 {
		errs = append(errs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "may only hold up to 2 values"))
	}
	if badIPs {
		// Further checks would only repeat the bad addresses.
		return errs
	}
	if len(spec.ClusterIPs) == 2 && isIPv6(spec.ClusterIPs[0]) == isIPv6(spec.ClusterIPs[1]) {
		errs = append(errs, field.Invalid(clusterIPsPath, spec.ClusterIPs, "may specify no more than one IP for each IP family"))
	}
	if !isHeadless(svc) {
		for i, ip := range spec.ClusterIPs {
			if i >= len(spec.IPFamilies) {
				break
			}
			switch fam := spec.IPFamilies[i]; {
			case fam == corev1.IPv4Protocol && isIPv6(ip):
				errs = append(errs, field.Invalid(clusterIPsPath.Index(i), ip, fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%v]`", i)))
			case fam == corev1.IPv6Protocol && !isIPv6(ip):
				errs = append(errs, field.Invalid(clusterIPsPath.Index(i), ip, fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%v]`", i)))
			}
		}
	}
	return errs
}

// validateClusterIPsUpdate: the ClusterIPs never change once set, except
// to or from ExternalName and between headless forms; a secondary one
// goes only with ipFamilyPolicy SingleStack.
func validateClusterIPsUpdate(svc, old *corev1.Service) field.ErrorList {
	if !needsClusterIP(svc) || !needsClusterIP(old) || (isHeadless(svc) && isHeadless(old)) {
		return nil
	}
	ips, was := svc.Spec.ClusterIPs, old.Spec.ClusterIPs
	first := clusterIPsPath.Index(0)
	var errs field.ErrorList
	switch {
	case len(was) == len(ips):
		for i := range was {
			if was[i] != ips[i] {
				errs = append(errs, field.Invalid(clusterIPsPath.Index(i), ips, "may not change once set"))
			}
		}
	case len(was) > len(ips):
		if len(ips) == 0 {
			errs = append(errs, field.Invalid(first, ips, "primary clusterIP can not be unset"))
		}
		if len(ips) > 0 && ips[0] != was[0] {
			errs = append(errs, field.Invalid(first, ips, "may not change once set"))
		}
		if len(ips) == 1 && policyOf(svc) != corev1.IPFamilyPolicySingleStack {
			errs = append(errs, field.Invalid(first, ips, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP"))
		}
	default:
		if len(was) > 0 && ips[0] != was[0] {
			errs = append(errs, field.Invalid(first, ips, "may not change once set"))
		}
	}
	return errs
}

// validateIPFamiliesUpdate: the primary IP family never changes (except
// to or from ExternalName or headless).
func validateIPFamiliesUpdate(svc, old *corev1.Service) field.ErrorList {
	if !needsClusterIP(svc) || !needsClusterIP(old) || isHeadless(svc) || isHeadless(old) {
		return nil
	}
	fams, was := svc.Spec.IPFamilies, old.Spec.IPFamilies
	first := specPath.Child("ipFamilies").Index(0)
	var errs field.ErrorList
	switch {
	case len(was) == len(fams):
		for i := range was {
			if was[i] != fams[i] {
				errs = append(errs, field.Invalid(first, fams, "may not change once set"))
			}
		}
	case len(was) > len(fams):
		if len(svc.Spec.ClusterIPs) == 0 {
			errs = append(errs, field.Invalid(first, fams, "primary ipFamily can not be unset"))
		}
		if len(fams) > 0 && fams[0] != was[0] {
			errs = append(errs, field.Invalid(first, svc.Spec.ClusterIPs, "may not change once set"))
		}
		if len(fams) == 1 && policyOf(svc) != corev1.IPFamilyPolicySingleStack {
			errs = append(errs, field.Invalid(clusterIPsPath.Index(0), svc.Spec.ClusterIPs, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary ipFamily"))
		}
	default:
		if len(was) > 0 && fams[0] != was[0] {
			errs = append(errs, field.Invalid(first, svc.Spec.ClusterIPs, "may not change once set"))
		}
	}
	return errs
}

// validateLoadBalancerClassUpdate: a LoadBalancer's class may be set
// when it becomes one, never changed after.
func validateLoadBalancerClassUpdate(svc, old *corev1.Service) field.ErrorList {
	if old.Spec.Type != corev1.ServiceTypeLoadBalancer || svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return nil
	}
	a, b := old.Spec.LoadBalancerClass, svc.Spec.LoadBalancerClass
	if (a == nil) == (b == nil) && (a == nil || *a == *b) {
		return nil
	}
	return field.ErrorList{field.Invalid(specPath.Child("loadBalancerClass"), b, "may not change once set")}
}

// isIPv6 reports whether s is an IPv6 address (not IPv4 or IPv4-mapped).
func isIPv6(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && !a.Is4In6()
}
