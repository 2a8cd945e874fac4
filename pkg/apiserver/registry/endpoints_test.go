//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

func TestEndpointsValidation(t *testing.T) {
	s := endpointsStrategy{}
	node := "node-1"
	good := &corev1.Endpoints{ObjectMeta: objMeta("web", "default"), Subsets: []corev1.EndpointSubset{{
		Addresses:         []corev1.EndpointAddress{{IP: "10.244.0.10", NodeName: &node}},
		NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.244.0.11"}},
		Ports:             []corev1.EndpointPort{{Name: "http", Port: 8080}},
	}}}
	s.PrepareForCreate(good)
	if good.Subsets[0].Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("protocol not defaulted: %+v", good.Subsets[0].Ports[0])
	}
	wantErrors(t, s.Validate(good))

	empty := ""
	bad := good.DeepCopy()
	bad.Subsets = append(bad.Subsets, corev1.EndpointSubset{})
	bad.Subsets[0].Addresses = []corev1.EndpointAddress{{IP: "not-an-ip"}, {IP: "127.0.0.1", NodeName: &empty}}
	bad.Subsets[0].Ports = []corev1.EndpointPort{{Port: 0, Protocol: "TCP"}, {Name: "x", Port: 1, Protocol: "ICMP"}}
	wantErrors(t, s.Validate(bad),
		`subsets[0].addresses[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
		`subsets[0].addresses[1].nodeName: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		`subsets[0].addresses[1].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
		`subsets[0].ports[0].name: Required value`,
		`subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`,
		`subsets[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
		"subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`")

	old := good.DeepCopy()
	old.ObjectMeta = storedMeta("web", "default")
	upd := old.DeepCopy()
	upd.Subsets[0].NotReadyAddresses[0].IP = "169.254.1.1"
	wantErrors(t, s.ValidateUpdate(upd, old),
		`subsets[0].notReadyAddresses[0].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`)
}

func TestEndpointsResourceWarns(t *testing.T) {
	for _, r := range builtin(t) {
		want := ""
		if r.Resource == "endpoints" {
			want = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"
		}
		if r.Warning != want {
			t.Errorf("%s: Warning = %q, want %q", r.Resource, r.Warning, want)
		}
	}
}

func TestEndpointSliceValidation(t *testing.T) {
	s := endpointSliceStrategy{}
	port := int32(80)
	good := &discoveryv1.EndpointSlice{ObjectMeta: objMeta("manual", "default"), AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.10"}}},
		Ports:     []discoveryv1.EndpointPort{{Port: &port}},
	}
	s.PrepareForCreate(good)
	if p := good.Ports[0]; p.Name == nil || *p.Name != "" || p.Protocol == nil || *p.Protocol != corev1.ProtocolTCP {
		t.Errorf("port not defaulted: %+v", p)
	}
	wantErrors(t, s.Validate(good))

	// The reference's eps-bad.yaml.
	bad := good.DeepCopy()
	bad.Endpoints[0].Addresses = []string{"not-an-ip"}
	wantErrors(t, s.Validate(bad),
		`endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`)

	node := "Bad_Node"
	worse := good.DeepCopy()
	worse.AddressType = ""
	worse.Endpoints = append(worse.Endpoints, discoveryv1.Endpoint{NodeName: &node})
	worse.Ports = append(worse.Ports, worse.Ports[0])
	wantErrors(t, s.Validate(worse),
		`addressType: Required value`,
		`endpoints[1].addresses: Required value: must contain at least 1 address`,
		`endpoints[1].nodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		`ports[1].name: Duplicate value: ""`)

	family := good.DeepCopy()
	family.Endpoints[0].Addresses = []string{"fd00::1", "0.0.0.0"}
	wantErrors(t, s.Validate(family),
		`endpoints[0].addresses: Invalid value: "fd00::1": must be an IPv4 address`,
		`endpoints[0].addresses[1]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`)

	old := good.DeepCopy()
	old.ObjectMeta = storedMeta("manual", "default")
	upd := old.DeepCopy()
	upd.AddressType = discoveryv1.AddressTypeIPv6
	upd.Endpoints[0].Addresses = []string{"fd00::1"}
	wantErrors(t, s.ValidateUpdate(upd, old), `addressType: Invalid value: "IPv6": field is immutable`)
}

func TestEndpointSliceGeneration(t *testing.T) {
	s := endpointSliceStrategy{}
	old := &discoveryv1.EndpointSlice{ObjectMeta: storedMeta("web-abcde", "default"), AddressType: discoveryv1.AddressTypeIPv4}
	same := old.DeepCopy()
	same.Annotations = map[string]string{"a": "b"}
	if s.GenerationChanged(same, old) {
		t.Error("an annotation moved the generation")
	}
	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"a": "b"}
	filled := old.DeepCopy()
	filled.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}}
	for name, obj := range map[string]*discoveryv1.EndpointSlice{"labels": labelled, "endpoints": filled} {
		if !s.GenerationChanged(obj, old) {
			t.Errorf("a change of %s kept the generation", name)
		}
	}
}
