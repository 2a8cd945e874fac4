package registry

// NetworkPolicies (networking.k8s.io/v1): which traffic may reach and
// leave the selected pods. Stored only: nothing enforces them here. kube's
// defaults are applied (TCP ports; policyTypes from the rules given).

import (
	"net"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// networkPolicies is networking.k8s.io/v1 networkpolicies.
func networkPolicies() *Resource {
	s := networkPolicyStrategy{}
	return &Resource{
		Group: networkingGroup, Version: "v1", Resource: "networkpolicies", Kind: "NetworkPolicy", ListKind: "NetworkPolicyList", Singular: "networkpolicy",
		ShortNames: []string{"netpol"}, Namespaced: true,
		New:        func() runtime.Object { return &networkingv1.NetworkPolicy{} },
		NewList:    func() runtime.Object { return &networkingv1.NetworkPolicyList{} },
		Strategy:   s,
		Generation: s.GenerationChanged,
		Table:      printers.NetworkPolicies,
	}
}

var (
	policyTypes           = []string{string(networkingv1.PolicyTypeIngress), string(networkingv1.PolicyTypeEgress)}
	networkPolicyProtocol = []string{string(corev1.ProtocolTCP), string(corev1.ProtocolUDP), string(corev1.ProtocolSCTP)}
)

type networkPolicyStrategy struct{}

// PrepareForCreate applies kube's defaults.
func (networkPolicyStrategy) PrepareForCreate(obj runtime.Object) {
	defaultNetworkPolicy(obj.(*networkingv1.NetworkPolicy))
}

// PrepareForUpdate applies the same defaults.
func (networkPolicyStrategy) PrepareForUpdate(obj, old runtime.Object) {
	defaultNetworkPolicy(obj.(*networkingv1.NetworkPolicy))
}

// defaultNetworkPolicy: a port without a protocol is TCP; without
// policyTypes a policy governs ingress, and egress too if it has egress
// rules.
func defaultNetworkPolicy(np *networkingv1.NetworkPolicy) {
	tcp := func(ports []networkingv1.NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				p := corev1.ProtocolTCP
				ports[i].Protocol = &p
			}
		}
	}
	for i := range np.Spec.Ingress {
		tcp(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		tcp(np.Spec.Egress[i].Ports)
	}
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) > 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
}

// GenerationChanged is true when the spec changed.
func (networkPolicyStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*networkingv1.NetworkPolicy).Spec, old.(*networkingv1.NetworkPolicy).Spec)
}

// Validate checks the name and the spec.
func (networkPolicyStrategy) Validate(obj runtime.Object) field.ErrorList {
	np := obj.(*networkingv1.NetworkPolicy)
	errs := ValidateMetaCreate(&np.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateNetworkPolicySpec(&np.Spec, nil)...)
}

// ValidateUpdate checks metadata and the spec; CIDRs the old policy
// already held are accepted as they are, as kube does.
func (networkPolicyStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	np, o := obj.(*networkingv1.NetworkPolicy), old.(*networkingv1.NetworkPolicy)
	errs := ValidateMetaUpdate(&np.ObjectMeta, &o.ObjectMeta)
	return append(errs, validateNetworkPolicySpec(&np.Spec, policyCIDRs(&o.Spec))...)
}

func validateNetworkPolicySpec(spec *networkingv1.NetworkPolicySpec, oldCIDRs []string) field.ErrorList {
	errs := metav1validation.ValidateLabelSelector(&spec.PodSelector, metav1validation.LabelSelectorValidationOptions{}, specPath.Child("podSelector"))
	for i, rule := range spec.Ingress {
		p := specPath.Child("ingress").Index(i)
		errs = append(errs, validatePolicyPorts(rule.Ports, p.Child("ports"))...)
		errs = append(errs, validatePolicyPeers(rule.From, p.Child("from"), oldCIDRs)...)
	}
	for i, rule := range spec.Egress {
		p := specPath.Child("egress").Index(i)
		errs = append(errs, validatePolicyPorts(rule.Ports, p.Child("ports"))...)
		errs = append(errs, validatePolicyPeers(rule.To, p.Child("to"), oldCIDRs)...)
	}
	if len(spec.PolicyTypes) > len(policyTypes) {
		return append(errs, field.Invalid(specPath.Child("policyTypes"), &spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range spec.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			errs = append(errs, field.NotSupported(specPath.Child("policyTypes").Index(i), t, policyTypes))
		}
	}
	return errs
}

func validatePolicyPorts(ports []networkingv1.NetworkPolicyPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, port := range ports {
		p := path.Index(i)
		if pr := port.Protocol; pr != nil && *pr != corev1.ProtocolTCP && *pr != corev1.ProtocolUDP && *pr != corev1.ProtocolSCTP {
			errs = append(errs, field.NotSupported(p.Child("protocol"), *pr, networkPolicyProtocol))
		}
		switch {
		case port.Port == nil:
			if port.EndPort != nil {
				errs = append(errs, field.Invalid(p.Child("endPort"), *port.EndPort, "may not be specified when `port` is not specified"))
			}
		case port.Port.Type == intstr.Int:
			for _, msg := range validation.IsValidPortNum(int(port.Port.IntVal)) {
				errs = append(errs, field.Invalid(p.Child("port"), port.Port.IntVal, msg))
			}
			if end := port.EndPort; end != nil {
				if *end < port.Port.IntVal {
					errs = append(errs, field.Invalid(p.Child("endPort"), *end, "must be greater than or equal to `port`"))
				}
				for _, msg := range validation.IsValidPortNum(int(*end)) {
					errs = append(errs, field.Invalid(p.Child("endPort"), *end, msg))
				}
			}
		default:
			if port.EndPort != nil {
				errs = append(errs, field.Invalid(p.Child("endPort"), *port.EndPort, "may not be specified when `port` is non-numeric"))
			}
			for _, msg := range validation.IsValidPortName(port.Port.StrVal) {
				errs = append(errs, field.Invalid(p.Child("port"), port.Port.StrVal, msg))
			}
		}
	}
	return errs
}

func validatePolicyPeers(peers []networkingv1.NetworkPolicyPeer, path *field.Path, oldCIDRs []string) field.ErrorList {
	var errs field.ErrorList
	opts := metav1validation.LabelSelectorValidationOptions{}
	for i, peer := range peers {
		p := path.Index(i)
		n := 0
		if peer.PodSelector != nil {
			n++
			errs = append(errs, metav1validation.ValidateLabelSelector(peer.PodSelector, opts, p.Child("podSelector"))...)
		}
		if peer.NamespaceSelector != nil {
			n++
			errs = append(errs, metav1validation.ValidateLabelSelector(peer.NamespaceSelector, opts, p.Child("namespaceSelector"))...)
		}
		if peer.IPBlock != nil {
			n++
			errs = append(errs, validateIPBlock(peer.IPBlock, p.Child("ipBlock"), oldCIDRs)...)
		}
		switch {
		case n == 0:
			errs = append(errs, field.Required(p, "must specify a peer"))
		case n > 1 && peer.IPBlock != nil:
			errs = append(errs, field.Forbidden(p, "may not specify both ipBlock and another peer"))
		}
	}
	return errs
}

// validateIPBlock wants a CIDR, and exceptions strictly inside it.
func validateIPBlock(b *networkingv1.IPBlock, p *field.Path, oldCIDRs []string) field.ErrorList {
	if b.CIDR == "" {
		return field.ErrorList{field.Required(p.Child("cidr"), "")}
	}
	errs := validation.IsValidCIDRForLegacyField(p.Child("cidr"), b.CIDR, false, oldCIDRs)
	_, outer, err := net.ParseCIDR(b.CIDR)
	if err != nil {
		return errs
	}
	for i, except := range b.Except {
		ep := p.Child("except").Index(i)
		errs = append(errs, validation.IsValidCIDRForLegacyField(ep, except, false, oldCIDRs)...)
		_, inner, err := net.ParseCIDR(except)
		if err != nil {
			continue
		}
		outerLen, _ := outer.Mask.Size()
		innerLen, _ := inner.Mask.Size()
		if !outer.Contains(inner.IP) || outerLen >= innerLen {
			errs = append(errs, field.Invalid(ep, except, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// policyCIDRs lists every CIDR a stored policy holds.
func policyCIDRs(spec *networkingv1.NetworkPolicySpec) []string {
	var cidrs []string
	add := func(peers []networkingv1.NetworkPolicyPeer) {
		for _, peer := range peers {
			if peer.IPBlock != nil {
				cidrs = append(cidrs, peer.IPBlock.CIDR)
				cidrs = append(cidrs, peer.IPBlock.Except...)
			}
		}
	}
	for _, r := range spec.Ingress {
		add(r.From)
	}
	for _, r := range spec.Egress {
		add(r.To)
	}
	return cidrs
}
