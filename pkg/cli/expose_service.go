package cli

import (
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// exposeSpec is what `expose` knows when it builds a Service: the flags,
// and what it learnt from the exposed object where a flag was not given.
type exposeSpec struct {
	Name, Selector, Labels          string
	Port, TargetPort, Protocol      string
	Type, ClusterIP, ExternalIP     string
	LoadBalancerIP, SessionAffinity string
	// ObjectPorts and ObjectProtocols come from the exposed object:
	// its distinct ports in order, and each port's protocols.
	ObjectPorts     []string
	ObjectProtocols map[string][]string
}

// exposeTarget is the part of an exposable object expose reads.
type exposeTarget struct {
	Selector  map[string]string
	Labels    map[string]string
	PodSpec   *corev1.PodSpec
	Service   *corev1.ServiceSpec
	Kind      string
	SelectErr error
}

// exposeTargetOf reads the selector, labels and ports of a Pod, Service,
// Deployment, ReplicaSet or ReplicationController, in kubectl's words
// when one has no usable selector.
func exposeTargetOf(kind string, obj map[string]any) (*exposeTarget, error) {
	t := &exposeTarget{Kind: kind}
	conv := runtime.DefaultUnstructuredConverter
	switch kind {
	case "Pod":
		var p corev1.Pod
		if err := conv.FromUnstructured(obj, &p); err != nil {
			return nil, err
		}
		t.Labels, t.PodSpec = p.Labels, &p.Spec
		t.Selector = p.Labels
		if len(p.Labels) == 0 {
			t.SelectErr = fmt.Errorf("the pod has no labels and cannot be exposed")
		}
	case "Service":
		var s corev1.Service
		if err := conv.FromUnstructured(obj, &s); err != nil {
			return nil, err
		}
		t.Labels, t.Service, t.Selector = s.Labels, &s.Spec, s.Spec.Selector
		if s.Spec.Selector == nil {
			t.SelectErr = fmt.Errorf("the service has no pod selector set")
		}
	case "Deployment", "ReplicaSet":
		var d appsv1.Deployment // a ReplicaSet has the same selector and template fields
		if err := conv.FromUnstructured(obj, &d); err != nil {
			return nil, err
		}
		t.Labels, t.PodSpec = d.Labels, &d.Spec.Template.Spec
		t.Selector, t.SelectErr = labelSelectorMap(strings.ToLower(kind), d.Spec.Selector)
	case "ReplicationController":
		var rc corev1.ReplicationController
		if err := conv.FromUnstructured(obj, &rc); err != nil {
			return nil, err
		}
		t.Labels, t.Selector = rc.Labels, rc.Spec.Selector
		if rc.Spec.Template != nil {
			t.PodSpec = &rc.Spec.Template.Spec
		}
	default:
		return nil, fmt.Errorf("cannot expose a %s", kind)
	}
	return t, nil
}

// labelSelectorMap is a workload's selector as labels; expressions cannot
// be a Service selector.
func labelSelectorMap(what string, sel *metav1.LabelSelector) (map[string]string, error) {
	if sel == nil || len(sel.MatchLabels) == 0 {
		return nil, fmt.Errorf("invalid %s: no selectors, therefore cannot be exposed", what)
	}
	if len(sel.MatchExpressions) > 0 {
		return nil, fmt.Errorf("couldn't convert expressions - \"%+v\" to map-based selector format", sel.MatchExpressions)
	}
	return sel.MatchLabels, nil
}

// ports are the object's distinct ports in order, and the protocols of
// each (TCP when unset).
func (t *exposeTarget) ports() ([]string, map[string][]string) {
	var order []string
	protocols := map[string][]string{}
	add := func(port int32, proto corev1.Protocol) {
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		key := strconv.Itoa(int(port))
		if _, seen := protocols[key]; !seen {
			order = append(order, key)
		}
		protocols[key] = append(protocols[key], string(proto))
	}
	if t.Service != nil {
		for _, p := range t.Service.Ports {
			add(p.Port, p.Protocol)
		}
	}
	if t.PodSpec != nil {
		for _, c := range t.PodSpec.Containers {
			for _, p := range c.Ports {
				add(p.ContainerPort, p.Protocol)
			}
		}
	}
	return order, protocols
}

// buildService makes the Service kubectl's expose sends.
func (s *exposeSpec) buildService() (*corev1.Service, error) {
	if s.Selector == "" {
		return nil, fmt.Errorf("selector must be specified")
	}
	selector, err := parseLabelSpec(s.Selector)
	if err != nil {
		return nil, err
	}
	var labels map[string]string
	if s.Labels != "" {
		if labels, err = parseLabelSpec(s.Labels); err != nil {
			return nil, err
		}
	}
	if s.Name == "" {
		return nil, fmt.Errorf("name must be specified")
	}
	ports, err := s.servicePorts()
	if err != nil {
		return nil, err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Labels: labels},
		Spec:       corev1.ServiceSpec{Selector: selector, Ports: ports},
	}
	for i := range svc.Spec.Ports {
		if s.TargetPort != "" {
			svc.Spec.Ports[i].TargetPort = intstr.Parse(s.TargetPort)
		} else {
			svc.Spec.Ports[i].TargetPort = intstr.FromInt32(svc.Spec.Ports[i].Port)
		}
	}
	if s.ExternalIP != "" {
		svc.Spec.ExternalIPs = []string{s.ExternalIP}
	}
	svc.Spec.Type = corev1.ServiceType(s.Type)
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		svc.Spec.LoadBalancerIP = s.LoadBalancerIP
	}
	switch a := corev1.ServiceAffinity(s.SessionAffinity); a {
	case "":
	case corev1.ServiceAffinityNone, corev1.ServiceAffinityClientIP:
		svc.Spec.SessionAffinity = a
	default:
		return nil, fmt.Errorf("unknown session affinity: %s", s.SessionAffinity)
	}
	svc.Spec.ClusterIP = s.ClusterIP
	return svc, nil
}

// servicePorts turns --port (or the object's ports) into Service ports:
// several ports are named port-1, port-2...; a port the object serves
// over several protocols becomes one Service port per protocol.
func (s *exposeSpec) servicePorts() ([]corev1.ServicePort, error) {
	list := s.Port
	if list == "" {
		list = strings.Join(s.ObjectPorts, ",")
	}
	ports := []corev1.ServicePort{}
	if list == "" {
		return ports, nil
	}
	parts := strings.Split(list, ",")
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, err
		}
		name := ""
		if len(parts) > 1 {
			name = fmt.Sprintf("port-%d", i+1)
		}
		proto := s.Protocol
		if proto == "" {
			proto = "TCP"
			if protos := s.ObjectProtocols[p]; len(protos) == 1 {
				proto = protos[0]
			} else if len(protos) > 1 {
				for _, pr := range protos {
					ports = append(ports, corev1.ServicePort{
						Name: fmt.Sprintf("port-%d-%s", i+1, strings.ToLower(pr)), Port: int32(n), Protocol: corev1.Protocol(pr)})
				}
				continue
			}
		}
		ports = append(ports, corev1.ServicePort{Name: name, Port: int32(n), Protocol: corev1.Protocol(proto)})
	}
	return ports, nil
}

// parseLabelSpec reads "k=v,k2=v2" (expose's --selector and --labels).
func parseLabelSpec(spec string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(spec, ",") {
		parts := strings.Split(kv, "=")
		if len(parts) != 2 {
			return nil, fmt.Errorf("unexpected label spec: %s", kv)
		}
		if parts[0] == "" {
			return nil, fmt.Errorf("unexpected empty label key")
		}
		out[parts[0]] = parts[1]
	}
	return out, nil
}

// formatLabelMap is "k=v,k2=v2" for a map.
func formatLabelMap(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}
