package registry

// A Service's defaults, as kube-apiserver's v1 defaulting sets them when
// it decodes a request, and the fields a type change drops.

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// defaultService applies v1 defaulting: session affinity None, type
// ClusterIP, each port TCP with targetPort = port, the traffic policies
// the type uses, and allocateLoadBalancerNodePorts for LoadBalancers.
// ipFamilies and ipFamilyPolicy are not defaults: the allocation hook
// sets them, as kube-apiserver's Service storage does.
func defaultService(svc *corev1.Service) {
	spec := &svc.Spec
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	if spec.SessionAffinity == corev1.ServiceAffinityNone {
		spec.SessionAffinityConfig = nil
	}
	if spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		if c := spec.SessionAffinityConfig; c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			timeout := corev1.DefaultClientIPServiceAffinitySeconds
			spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &timeout}}
		}
	}
	if spec.Type == "" {
		spec.Type = corev1.ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if externallyAccessible(svc) && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if spec.InternalTrafficPolicy == nil && needsClusterIP(svc) {
		cluster := corev1.ServiceInternalTrafficPolicyCluster
		spec.InternalTrafficPolicy = &cluster
	}
	if spec.Type == corev1.ServiceTypeLoadBalancer && spec.AllocateLoadBalancerNodePorts == nil {
		yes := true
		spec.AllocateLoadBalancerNodePorts = &yes
	}
}

// dropTypeDependentFields clears, on update, what the old type needed
// and the new one does not, when the client left it as it was: the
// ClusterIPs and IP family fields, NodePorts, the health check NodePort,
// allocateLoadBalancerNodePorts, loadBalancerClass and the traffic
// policies. What is dropped is given back once the update is stored. A
// value the client changed stays, and validation judges it.
func dropTypeDependentFields(svc, old *corev1.Service) {
	spec, was := &svc.Spec, &old.Spec
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if sameClusterIPs(old, svc) {
			spec.ClusterIP, spec.ClusterIPs = "", nil
		}
		if slices.Equal(familyStrings(was.IPFamilies), familyStrings(spec.IPFamilies)) {
			spec.IPFamilies = nil
		}
		if policyOf(old) == policyOf(svc) {
			spec.IPFamilyPolicy = nil
		}
		if was.InternalTrafficPolicy != nil && spec.InternalTrafficPolicy != nil && *was.InternalTrafficPolicy == *spec.InternalTrafficPolicy {
			spec.InternalTrafficPolicy = nil
		}
	}
	if needsNodePorts(old) && !needsNodePorts(svc) && nodePortsSubset(svc, old) {
		for i := range spec.Ports {
			spec.Ports[i].NodePort = 0
		}
	}
	if needsHealthCheck(old) && !needsHealthCheck(svc) && was.HealthCheckNodePort == spec.HealthCheckNodePort {
		spec.HealthCheckNodePort = 0
	}
	if was.Type == corev1.ServiceTypeLoadBalancer && spec.Type != corev1.ServiceTypeLoadBalancer {
		if a, b := was.AllocateLoadBalancerNodePorts, spec.AllocateLoadBalancerNodePorts; a != nil && b != nil && *a == *b {
			spec.AllocateLoadBalancerNodePorts = nil
		}
		if a, b := was.LoadBalancerClass, spec.LoadBalancerClass; (a == nil) == (b == nil) && (a == nil || *a == *b) {
			spec.LoadBalancerClass = nil
		}
	}
	if needsNodePorts(old) && !needsNodePorts(svc) && was.ExternalTrafficPolicy == spec.ExternalTrafficPolicy {
		spec.ExternalTrafficPolicy = ""
	}
	if spec.Type != corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
}

// needsClusterIP: every type but ExternalName has a clusterIP (an
// address, or None for a headless Service).
func needsClusterIP(svc *corev1.Service) bool {
	return svc.Spec.Type != corev1.ServiceTypeExternalName
}

// needsNodePorts: the types whose ports are opened on every node.
func needsNodePorts(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// allocatesNodePorts says whether ports without a nodePort get one: a
// LoadBalancer may opt out with allocateLoadBalancerNodePorts=false.
func allocatesNodePorts(svc *corev1.Service) bool {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeLoadBalancer:
		a := svc.Spec.AllocateLoadBalancerNodePorts
		return a == nil || *a
	}
	return false
}

// needsHealthCheck: a LoadBalancer that keeps traffic on the local node
// has a health check NodePort.
func needsHealthCheck(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// externallyAccessible: reachable from outside the cluster, so the
// external traffic policy applies.
func externallyAccessible(svc *corev1.Service) bool {
	return needsNodePorts(svc) || (svc.Spec.Type == corev1.ServiceTypeClusterIP && len(svc.Spec.ExternalIPs) > 0)
}

func isHeadless(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP == corev1.ClusterIPNone
}

func sameClusterIPs(a, b *corev1.Service) bool {
	return a.Spec.ClusterIP == b.Spec.ClusterIP && slices.Equal(a.Spec.ClusterIPs, b.Spec.ClusterIPs)
}

// nodePortsSubset: svc asks for no NodePort that old did not have.
func nodePortsSubset(svc, old *corev1.Service) bool {
	had := map[int32]bool{}
	for _, p := range old.Spec.Ports {
		had[p.NodePort] = true
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && !had[p.NodePort] {
			return false
		}
	}
	return true
}

func policyOf(svc *corev1.Service) corev1.IPFamilyPolicy {
	if svc.Spec.IPFamilyPolicy == nil {
		return ""
	}
	return *svc.Spec.IPFamilyPolicy
}

func familyStrings(fams []corev1.IPFamily) []string {
	out := make([]string, len(fams))
	for i, f := range fams {
		out[i] = string(f)
	}
	return out
}
