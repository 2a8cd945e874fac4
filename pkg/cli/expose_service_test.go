package cli

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestExposeTargetPortsAndSelector(t *testing.T) {
	pod := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "labels": map[string]any{"app": "dns"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "ports": []any{
			map[string]any{"containerPort": int64(53), "protocol": "UDP"},
			map[string]any{"containerPort": int64(53), "protocol": "TCP"},
			map[string]any{"containerPort": int64(9153)},
		}}}},
	}
	target, err := exposeTargetOf("Pod", pod)
	if err != nil || target.SelectErr != nil {
		t.Fatal(err, target.SelectErr)
	}
	ports, protocols := target.ports()
	if !reflect.DeepEqual(ports, []string{"53", "9153"}) ||
		!reflect.DeepEqual(protocols, map[string][]string{"53": {"UDP", "TCP"}, "9153": {"TCP"}}) {
		t.Errorf("ports %v protocols %v", ports, protocols)
	}
	if formatLabelMap(target.Selector) != "app=dns" {
		t.Errorf("selector %v", target.Selector)
	}

	deploy := map[string]any{"spec": map[string]any{"selector": map[string]any{
		"matchExpressions": []any{map[string]any{"key": "a", "operator": "Exists"}}}}}
	target, err = exposeTargetOf("Deployment", deploy)
	if err != nil || target.SelectErr == nil || target.SelectErr.Error() != "invalid deployment: no selectors, therefore cannot be exposed" {
		t.Errorf("deployment without matchLabels: %v %v", err, target.SelectErr)
	}
	if _, err := exposeTargetOf("ConfigMap", map[string]any{}); err == nil || err.Error() != "cannot expose a ConfigMap" {
		t.Errorf("configmap: %v", err)
	}
}

func TestExposeServicePorts(t *testing.T) {
	spec := exposeSpec{Name: "dns", Selector: "app=dns", ObjectPorts: []string{"53", "9153"},
		ObjectProtocols: map[string][]string{"53": {"UDP", "TCP"}, "9153": {"TCP"}}}
	svc, err := spec.buildService()
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.ServicePort{
		{Name: "port-1-udp", Port: 53, Protocol: "UDP", TargetPort: intstr.FromInt32(53)},
		{Name: "port-1-tcp", Port: 53, Protocol: "TCP", TargetPort: intstr.FromInt32(53)},
		{Name: "port-2", Port: 9153, Protocol: "TCP", TargetPort: intstr.FromInt32(9153)},
	}
	if !reflect.DeepEqual(svc.Spec.Ports, want) {
		t.Errorf("ports %+v", svc.Spec.Ports)
	}

	// --port and --protocol win over the object's; one port has no name;
	// a named target port stays a name.
	spec.Port, spec.Protocol, spec.TargetPort, spec.ClusterIP = "53", "UDP", "dns", "None"
	svc, err = spec.buildService()
	if err != nil {
		t.Fatal(err)
	}
	want = []corev1.ServicePort{{Port: 53, Protocol: "UDP", TargetPort: intstr.FromString("dns")}}
	if !reflect.DeepEqual(svc.Spec.Ports, want) || svc.Spec.ClusterIP != "None" {
		t.Errorf("got %+v clusterIP %q", svc.Spec.Ports, svc.Spec.ClusterIP)
	}

	for _, tc := range []struct {
		spec exposeSpec
		err  string
	}{
		{exposeSpec{Name: "x"}, "selector must be specified"},
		{exposeSpec{Name: "x", Selector: "a"}, "unexpected label spec: a"},
		{exposeSpec{Name: "x", Selector: "=b"}, "unexpected empty label key"},
		{exposeSpec{Name: "x", Selector: "a=b", Port: "http"}, `strconv.Atoi: parsing "http": invalid syntax`},
		{exposeSpec{Name: "x", Selector: "a=b", SessionAffinity: "Sticky"}, "unknown session affinity: Sticky"},
	} {
		if _, err := tc.spec.buildService(); err == nil || err.Error() != tc.err {
			t.Errorf("%+v: err %v, want %q", tc.spec, err, tc.err)
		}
	}
}
