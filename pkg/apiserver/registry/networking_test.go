package registry

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func webIngress() *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{ObjectMeta: objMeta("web", "default"), Spec: networkingv1.IngressSpec{
		Rules: []networkingv1.IngressRule{{Host: "web.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}},
			}}},
		}}}},
		TLS: []networkingv1.IngressTLS{{Hosts: []string{"web.example.com"}, SecretName: "web-tls"}},
	}}
}

func TestIngressValidation(t *testing.T) {
	s := ingressStrategy{}
	wantErrors(t, s.Validate(webIngress()))
	const path0 = "spec.rules[0].http.paths[0]"
	for _, tc := range []struct {
		name   string
		change func(*networkingv1.Ingress)
		want   []string
	}{
		{"path type", func(i *networkingv1.Ingress) {
			pt := networkingv1.PathType("Sometimes")
			i.Spec.Rules[0].HTTP.Paths[0].PathType = &pt
		}, []string{path0 + `.pathType: Unsupported value: "Sometimes": supported values: "Exact", "ImplementationSpecific", "Prefix"`}},
		{"relative path", func(i *networkingv1.Ingress) { i.Spec.Rules[0].HTTP.Paths[0].Path = "no-slash" },
			[]string{path0 + `.path: Invalid value: "no-slash": must be an absolute path`}},
		{"dot segments", func(i *networkingv1.Ingress) { i.Spec.Rules[0].HTTP.Paths[0].Path = "/a/../b/." },
			[]string{path0 + `.path: Invalid value: "/a/../b/.": must not contain '/../'`, path0 + `.path: Invalid value: "/a/../b/.": cannot end with '/.'`}},
		{"host", func(i *networkingv1.Ingress) { i.Spec.Rules[0].Host = "Web_Bad" },
			[]string{`spec.rules[0].host: Invalid value: "Web_Bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"IP host", func(i *networkingv1.Ingress) { i.Spec.Rules[0].Host = "10.0.0.1" },
			[]string{`spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`}},
		{"wildcard host", func(i *networkingv1.Ingress) { i.Spec.Rules[0].Host = "*.example.com" }, nil},
		{"no port", func(i *networkingv1.Ingress) {
			i.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = networkingv1.ServiceBackendPort{}
		},
			[]string{path0 + ".backend: Required value: port name or number is required"}},
		{"no backend", func(i *networkingv1.Ingress) { i.Spec.Rules[0].HTTP.Paths[0].Backend = networkingv1.IngressBackend{} },
			[]string{path0 + `.backend: Invalid value: "": resource or service backend is required`}},
		{"no rules", func(i *networkingv1.Ingress) { i.Spec.Rules = nil },
			[]string{"spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"}},
		{"class annotation", func(i *networkingv1.Ingress) {
			i.Annotations = map[string]string{ingressClassAnnotation: "nginx"}
			i.Spec.IngressClassName = ptr("traefik")
		}, []string{"annotations.kubernetes.io/ingress.class: Invalid value: \"nginx\": must match `ingressClassName` when both are specified"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ing := webIngress()
			tc.change(ing)
			wantErrors(t, s.Validate(ing), tc.want...)
		})
	}
}

func TestIngressStatusAndGeneration(t *testing.T) {
	s := ingressStrategy{}
	ing := webIngress()
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.9"}}
	s.PrepareForCreate(ing)
	if len(ing.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("create kept status %+v", ing.Status)
	}
	old := ing.DeepCopy()
	old.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.9"}}
	upd := old.DeepCopy()
	upd.Status = networkingv1.IngressStatus{}
	s.PrepareForUpdate(upd, old)
	if len(upd.Status.LoadBalancer.Ingress) != 1 || s.GenerationChanged(upd, old) {
		t.Errorf("update: status %+v, generation moved %v", upd.Status, s.GenerationChanged(upd, old))
	}
	upd.Spec.Rules[0].Host = "other.example.com"
	if !s.GenerationChanged(upd, old) {
		t.Error("a spec change does not move generation")
	}
	st := old.DeepCopy()
	st.Spec.Rules = nil
	st.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "not-an-ip"}}
	s.PrepareForStatusUpdate(st, old)
	if len(st.Spec.Rules) != 1 {
		t.Error("a status write changed the spec")
	}
	old.ObjectMeta = storedMeta("web", "default")
	st.ObjectMeta = old.ObjectMeta
	wantErrors(t, s.ValidateStatusUpdate(st, old), `status.loadBalancer.ingress[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`)
}

func TestIngressClass(t *testing.T) {
	s := ingressClassStrategy{}
	c := &networkingv1.IngressClass{ObjectMeta: objMeta("nginx", ""), Spec: networkingv1.IngressClassSpec{
		Controller: "k8s.io/ingress-nginx",
		Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "IngressParameters", Name: "external-lb"},
	}}
	s.PrepareForCreate(c)
	if c.Spec.Parameters.Scope == nil || *c.Spec.Parameters.Scope != "Cluster" {
		t.Errorf("scope = %v, want Cluster", c.Spec.Parameters.Scope)
	}
	wantErrors(t, s.Validate(c))

	bad := c.DeepCopy()
	bad.Spec.Controller = ""
	bad.Spec.Parameters.Scope = ptr("Namespace")
	wantErrors(t, s.Validate(bad), "spec.controller: Required value", "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'")

	old := c.DeepCopy()
	old.ObjectMeta = storedMeta("nginx", "")
	upd := old.DeepCopy()
	upd.Spec.Controller = "example.com/other"
	wantErrors(t, s.ValidateUpdate(upd, old), `spec.controller: Invalid value: "example.com/other": field is immutable`)
	if !s.GenerationChanged(upd, old) {
		t.Error("generation does not move with the spec")
	}
}

func allowWeb() *networkingv1.NetworkPolicy {
	port := intstr.FromInt32(8080)
	return &networkingv1.NetworkPolicy{ObjectMeta: objMeta("allow-web", "default"), Spec: networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Ingress: []networkingv1.NetworkPolicyIngressRule{{
			From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "frontend"}}}},
			Ports: []networkingv1.NetworkPolicyPort{{Port: &port}},
		}},
	}}
}

func TestNetworkPolicyDefaults(t *testing.T) {
	np := allowWeb()
	networkPolicyStrategy{}.PrepareForCreate(np)
	if p := np.Spec.Ingress[0].Ports[0].Protocol; p == nil || *p != "TCP" {
		t.Errorf("protocol = %v", p)
	}
	if got := np.Spec.PolicyTypes; len(got) != 1 || got[0] != "Ingress" {
		t.Errorf("policyTypes = %v", got)
	}
	egress := allowWeb()
	egress.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{}}
	networkPolicyStrategy{}.PrepareForCreate(egress)
	if got := egress.Spec.PolicyTypes; len(got) != 2 || got[1] != "Egress" {
		t.Errorf("policyTypes with egress rules = %v", got)
	}
}

func TestNetworkPolicyValidation(t *testing.T) {
	s := networkPolicyStrategy{}
	for _, tc := range []struct {
		name   string
		change func(*networkingv1.NetworkPolicy)
		want   []string
	}{
		{"valid", func(*networkingv1.NetworkPolicy) {}, nil},
		{"policy type", func(np *networkingv1.NetworkPolicy) { np.Spec.PolicyTypes = []networkingv1.PolicyType{"Sideways"} },
			[]string{`spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"`}},
		{"port", func(np *networkingv1.NetworkPolicy) { *np.Spec.Ingress[0].Ports[0].Port = intstr.FromInt32(70000) },
			[]string{"spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"empty peer", func(np *networkingv1.NetworkPolicy) { np.Spec.Ingress[0].From = []networkingv1.NetworkPolicyPeer{{}} },
			[]string{"spec.ingress[0].from[0]: Required value: must specify a peer"}},
		{"ip block", func(np *networkingv1.NetworkPolicy) {
			np.Spec.Ingress[0].From = []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/16", Except: []string{"10.1.0.0/24"}}}}
		}, []string{`spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of ` + "`cidr`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := allowWeb()
			s.PrepareForCreate(np)
			tc.change(np)
			wantErrors(t, s.Validate(np), tc.want...)
		})
	}
}
