package printers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Ingresses is kube-apiserver's Table for networking.k8s.io/v1 Ingresses:
// NAME, CLASS, HOSTS, ADDRESS, PORTS, AGE. IngressClasses is theirs:
// NAME, CONTROLLER, PARAMETERS, AGE.
var (
	Ingresses      = printer{columns: ingressColumns, cells: ingressCells}.table
	IngressClasses = printer{columns: ingressClassColumns, cells: ingressClassCells}.table
)

var ingressColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Class", "string", "The name of the IngressClass resource that should be used for additional configuration", 0),
	col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule", 0),
	col("Address", "string", "Address is a list containing ingress points for the load-balancer", 0),
	col("Ports", "string", "Ports of TLS configurations that open", 0),
	ageCol(),
}

var ingressClassColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Controller", "string", "Controller that is responsible for handling this class", 0),
	col("Parameters", "string", "A reference to a resource with additional parameters", 0),
	ageCol(),
}

func ingressCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	ing := obj.(*networkingv1.Ingress)
	class := "<none>"
	if ing.Spec.IngressClassName != nil {
		class = *ing.Spec.IngressClassName
	}
	ports := "80"
	if len(ing.Spec.TLS) > 0 {
		ports = "80, 443"
	}
	return []interface{}{ing.Name, class, ingressHosts(ing.Spec.Rules), ingressAddress(ing.Status.LoadBalancer), ports, age(ing.CreationTimestamp, now)}, nil
}

// ingressHosts lists the first three hosts (rules without one are
// skipped), "*" when there are none, and says how many rules are left.
func ingressHosts(rules []networkingv1.IngressRule) string {
	const most = 3
	var hosts []string
	more := false
	for _, r := range rules {
		if len(hosts) == most {
			more = true
		}
		if !more && r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	if len(hosts) == 0 {
		return "*"
	}
	s := strings.Join(hosts, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", s, len(rules)-most)
	}
	return s
}

// ingressAddress is the sorted, distinct IPs (or else hostnames) a
// controller reported, unclipped as in the server's wide rendering.
func ingressAddress(s networkingv1.IngressLoadBalancerStatus) string {
	seen := map[string]bool{}
	var out []string
	for _, lb := range s.Ingress {
		v := lb.IP
		if v == "" {
			v = lb.Hostname
		}
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// ingressClassCells renders PARAMETERS as Kind[.group]/name.
func ingressClassCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	c := obj.(*networkingv1.IngressClass)
	params := "<none>"
	if p := c.Spec.Parameters; p != nil {
		params = p.Kind
		if p.APIGroup != nil {
			params += "." + *p.APIGroup
		}
		params += "/" + p.Name
	}
	return []interface{}{c.Name, c.Spec.Controller, params, age(c.CreationTimestamp, now)}, nil
}
