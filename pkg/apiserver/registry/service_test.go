package registry

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func newService(name string, mutate func(*corev1.ServiceSpec)) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: objMeta(name, "default"), Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "web"},
		Ports:    []corev1.ServicePort{{Port: 80}},
	}}
	if mutate != nil {
		mutate(&svc.Spec)
	}
	return svc
}

// specJSON is the spec as it goes on the wire, for comparing with the
// reference's `-o yaml`.
func specJSON(t *testing.T, spec corev1.ServiceSpec) string {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The defaults of the reference's web, web-notarget, web-np, web-lb and
// ext (section 3); ClusterIPs, ipFamilies and ipFamilyPolicy come from
// the allocation hook (servicealloc_test.go).
func TestServiceDefaults(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*corev1.ServiceSpec)
		want   string
	}{
		{"web", func(s *corev1.ServiceSpec) { s.Ports[0].TargetPort = intstr.FromInt32(8080) },
			`{"ports":[{"protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"web"},"type":"ClusterIP","sessionAffinity":"None","internalTrafficPolicy":"Cluster"}`},
		{"web-notarget", func(s *corev1.ServiceSpec) {
			s.Ports = []corev1.ServicePort{{Name: "http", Port: 80}, {Name: "metrics", Port: 9090, Protocol: corev1.ProtocolUDP}}
		}, `{"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":80},{"name":"metrics","protocol":"UDP","port":9090,"targetPort":9090}],"selector":{"app":"web"},"type":"ClusterIP","sessionAffinity":"None","internalTrafficPolicy":"Cluster"}`},
		{"web-np", func(s *corev1.ServiceSpec) { s.Type = "NodePort"; s.Ports[0].TargetPort = intstr.FromString("http") },
			`{"ports":[{"protocol":"TCP","port":80,"targetPort":"http"}],"selector":{"app":"web"},"type":"NodePort","sessionAffinity":"None","externalTrafficPolicy":"Cluster","internalTrafficPolicy":"Cluster"}`},
		{"web-lb", func(s *corev1.ServiceSpec) { s.Type = "LoadBalancer"; s.Ports[0].Port = 443 },
			`{"ports":[{"protocol":"TCP","port":443,"targetPort":443}],"selector":{"app":"web"},"type":"LoadBalancer","sessionAffinity":"None","externalTrafficPolicy":"Cluster","allocateLoadBalancerNodePorts":true,"internalTrafficPolicy":"Cluster"}`},
		{"ext", func(s *corev1.ServiceSpec) {
			s.Type = "ExternalName"
			s.ExternalName = "db.example.com"
			s.Ports = nil
			s.Selector = nil
		},
			`{"type":"ExternalName","sessionAffinity":"None","externalName":"db.example.com"}`},
		{"affinity", func(s *corev1.ServiceSpec) { s.SessionAffinity = "ClientIP" },
			`{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"selector":{"app":"web"},"type":"ClusterIP","sessionAffinity":"ClientIP","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10800}},"internalTrafficPolicy":"Cluster"}`},
	}
	for _, c := range cases {
		svc := newService(c.name, c.mutate)
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
		serviceStrategy{}.PrepareForCreate(svc)
		if got := specJSON(t, svc.Spec); got != c.want {
			t.Errorf("%s:\n got: %s\nwant: %s", c.name, got, c.want)
		}
		if len(svc.Status.LoadBalancer.Ingress) != 0 {
			t.Errorf("%s: create kept the status", c.name)
		}
	}
}

// allocated is a Service as stored after create: defaulted, with the
// fields the allocation hook fills.
func allocated(svc *corev1.Service, clusterIP string, nodePorts ...int32) *corev1.Service {
	serviceStrategy{}.PrepareForCreate(svc)
	if svc.Spec.Type != corev1.ServiceTypeExternalName {
		single := corev1.IPFamilyPolicySingleStack
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = clusterIP, []string{clusterIP}
		svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = []corev1.IPFamily{corev1.IPv4Protocol}, &single
	}
	for i, np := range nodePorts {
		svc.Spec.Ports[i].NodePort = np
	}
	svc.ObjectMeta = storedMeta(svc.Name, "default")
	return svc
}

func TestServiceValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*corev1.ServiceSpec)
		want   []string
	}{
		{"dup", func(s *corev1.ServiceSpec) { s.Ports = []corev1.ServicePort{{Port: 80}, {Port: 80}}; s.Selector = nil }, []string{
			"spec.ports[0].name: Required value",
			"spec.ports[1].name: Required value",
			`spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}`,
		}},
		{"bigport", func(s *corev1.ServiceSpec) { s.Ports = []corev1.ServicePort{{Name: "http", Port: 70000}} }, []string{
			"spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
			"spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
		}},
		{"noports", func(s *corev1.ServiceSpec) { s.Ports = nil }, []string{"spec.ports: Required value"}},
		{"cip-nodeport", func(s *corev1.ServiceSpec) { s.Ports[0].NodePort = 30080 }, []string{
			"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
		}},
		{"ext-noname", func(s *corev1.ServiceSpec) { s.Type = "ExternalName" }, []string{"spec.externalName: Required value"}},
		{"ext-badname", func(s *corev1.ServiceSpec) { s.Type = "ExternalName"; s.ExternalName = "Bad_Name" }, []string{
			`spec.externalName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},
		{"headless-np", func(s *corev1.ServiceSpec) {
			s.Type = "NodePort"
			s.ClusterIP = "None"
			s.ClusterIPs = []string{"None"}
		}, []string{
			`spec.clusterIP: Invalid value: "None": may not be set to 'None' for NodePort services`,
		}},
		{"badtype", func(s *corev1.ServiceSpec) { s.Type = "Magic" }, []string{
			`spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`,
		}},
		{"badip", func(s *corev1.ServiceSpec) { s.ClusterIP = "10.96.0.300"; s.ClusterIPs = []string{"10.96.0.300"} }, []string{
			`spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
		}},
		{"mismatch", func(s *corev1.ServiceSpec) { s.ClusterIP = "10.96.0.5"; s.ClusterIPs = []string{"10.96.0.6"} }, []string{
			"spec.clusterIPs: Invalid value: [\"10.96.0.6\"]: first value must match `clusterIP`",
		}},
		{"protocol", func(s *corev1.ServiceSpec) { s.Ports[0].Protocol = "ICMP" }, []string{
			`spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
		}},
		{"affinity", func(s *corev1.ServiceSpec) {
			s.SessionAffinity = "ClientIP"
			s.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(int32(90000))}}
		}, []string{"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 90000: must be greater than 0 and less than 86400"}},
		{"externalip", func(s *corev1.ServiceSpec) { s.ExternalIPs = []string{"127.0.0.1"} }, []string{
			`spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
		}},
		{"lb-only", func(s *corev1.ServiceSpec) { s.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} }, []string{
			"spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
		}},
	}
	for _, c := range cases {
		svc := newService(c.name, c.mutate)
		serviceStrategy{}.PrepareForCreate(svc)
		wantErrors(t, serviceStrategy{}.Validate(svc), c.want...)
	}
	if errs := (serviceStrategy{}).Validate(allocated(newService("ok", nil), "10.96.0.10")); len(errs) > 0 {
		t.Errorf("a valid Service: %v", errs)
	}
}

func TestServiceUpdateRules(t *testing.T) {
	s := serviceStrategy{}
	old := allocated(newService("web", nil), "10.96.0.139")

	// The ClusterIP never changes.
	svc := old.DeepCopy()
	svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "10.96.0.99", []string{"10.96.0.99"}
	s.PrepareForUpdate(svc, old)
	wantErrors(t, s.ValidateUpdate(svc, old), `spec.clusterIPs[0]: Invalid value: ["10.96.0.99"]: may not change once set`)

	// ClusterIP -> ExternalName drops the ClusterIP fields.
	svc = old.DeepCopy()
	svc.Spec.Type, svc.Spec.ExternalName = corev1.ServiceTypeExternalName, "x.example.com"
	s.PrepareForUpdate(svc, old)
	wantErrors(t, s.ValidateUpdate(svc, old))
	if got := specJSON(t, svc.Spec); got != `{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"selector":{"app":"web"},"type":"ExternalName","sessionAffinity":"None","externalName":"x.example.com"}` {
		t.Errorf("ClusterIP -> ExternalName: %s", got)
	}

	// NodePort -> ClusterIP drops the nodePort and externalTrafficPolicy.
	np := allocated(newService("web-np", func(s *corev1.ServiceSpec) { s.Type = corev1.ServiceTypeNodePort }), "10.96.0.44", 30887)
	svc = np.DeepCopy()
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	s.PrepareForUpdate(svc, np)
	wantErrors(t, s.ValidateUpdate(svc, np))
	if svc.Spec.Ports[0].NodePort != 0 || svc.Spec.ExternalTrafficPolicy != "" {
		t.Errorf("NodePort -> ClusterIP kept %+v", svc.Spec)
	}

	// A status write keeps the spec and checks the ingress addresses.
	lb := allocated(newService("lb", func(s *corev1.ServiceSpec) { s.Type = corev1.ServiceTypeLoadBalancer }), "10.96.0.5", 30001)
	svc = lb.DeepCopy()
	svc.Spec.Selector = nil
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "not-an-ip"}}
	s.PrepareForStatusUpdate(svc, lb)
	if svc.Spec.Selector == nil {
		t.Error("a status write changed the spec")
	}
	wantErrors(t, s.ValidateStatusUpdate(svc, lb),
		`status.loadBalancer.ingress[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`)
}

func TestServiceFieldSet(t *testing.T) {
	svc := allocated(newService("web", func(s *corev1.ServiceSpec) { s.Type = corev1.ServiceTypeNodePort }), "10.96.0.44", 30887)
	fs := serviceStrategy{}.FieldSet(svc)
	if fs["spec.type"] != "NodePort" || fs["spec.clusterIP"] != "10.96.0.44" || fs["metadata.name"] != "web" || fs["metadata.namespace"] != "default" {
		t.Errorf("fields = %v", fs)
	}
}
