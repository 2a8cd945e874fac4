package printers

// Services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, and SELECTOR
// wide, with kube-apiserver's cell formats.

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// Services is the Table of core/v1 services (a registry.TableFunc).
var Services = printer{columns: serviceColumns, cells: serviceCells}.table

var serviceColumns = func() []metav1.TableColumnDefinition {
	doc := corev1.ServiceSpec{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameCol(),
		col("Type", "string", doc["type"], 0),
		col("Cluster-IP", "string", doc["clusterIP"], 0),
		col("External-IP", "string", doc["externalIPs"], 0),
		col("Port(s)", "string", doc["ports"], 0),
		ageCol(),
		col("Selector", "string", doc["selector"], 1),
	}
}()

func serviceCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, fmt.Errorf("printers: %T is not a Service", obj)
	}
	clusterIP := "<none>"
	if len(svc.Spec.ClusterIPs) > 0 {
		clusterIP = svc.Spec.ClusterIPs[0]
	}
	ports := servicePorts(svc.Spec.Ports)
	if ports == "" {
		ports = "<none>"
	}
	return []interface{}{
		svc.Name, string(svc.Spec.Type), clusterIP, serviceExternalIP(svc), ports,
		age(svc.CreationTimestamp, now), labels.FormatLabels(svc.Spec.Selector),
	}, nil
}

// serviceExternalIP is the EXTERNAL-IP cell: the external IPs, a load
// balancer's addresses (<pending> until it has one), or the external name.
func serviceExternalIP(svc *corev1.Service) string {
	external := svc.Spec.ExternalIPs
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(external) > 0 {
			return strings.Join(external, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		all := append(loadBalancerAddresses(svc.Status.LoadBalancer), external...)
		if len(all) > 0 {
			return strings.Join(all, ",")
		}
		return "<pending>"
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

// loadBalancerAddresses are the ingress IPs (or hostnames), sorted and
// each once.
func loadBalancerAddresses(s corev1.LoadBalancerStatus) []string {
	seen := map[string]bool{}
	var out []string
	for _, ing := range s.Ingress {
		v := ing.IP
		if v == "" {
			v = ing.Hostname
		}
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// servicePorts is the PORT(S) cell: 80/TCP, or 80:30080/TCP with a
// NodePort, comma-separated.
func servicePorts(ports []corev1.ServicePort) string {
	cells := make([]string, len(ports))
	for i, p := range ports {
		cells[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		if p.NodePort > 0 {
			cells[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		}
	}
	return strings.Join(cells, ",")
}
