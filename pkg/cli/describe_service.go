package cli

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

func describeServiceByName(ctx context.Context, cs kubernetes.Interface, ns, name string, showEvents bool) (string, error) {
	svc, err := cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	// A server without EndpointSlices (miniapi serves none) gives
	// "Endpoints: <none>", as kubectl shows it.
	var slices []discoveryv1.EndpointSlice
	list, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=" + svc.Name,
	})
	if err == nil {
		slices = list.Items
	}
	var events *corev1.EventList
	if showEvents {
		events, _ = searchEvents(ctx, cs, "Service", svc)
	}
	return describeService(svc, slices, events), nil
}

// describeService is kubectl's Service layout: addresses, then one
// Port/TargetPort/NodePort/Endpoints group per port.
func describeService(svc *corev1.Service, slices []discoveryv1.EndpointSlice, events *corev1.EventList) string {
	spec := svc.Spec
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", svc.Name)
		w.write(0, "Namespace:\t%s\n", svc.Namespace)
		printLabels(w, "Labels", svc.Labels)
		printAnnotations(w, "Annotations", svc.Annotations)
		w.write(0, "Selector:\t%s\n", labels.FormatLabels(spec.Selector))
		w.write(0, "Type:\t%s\n", spec.Type)
		if spec.IPFamilyPolicy != nil {
			w.write(0, "IP Family Policy:\t%s\n", *spec.IPFamilyPolicy)
		}
		families := make([]string, 0, len(spec.IPFamilies))
		for _, f := range spec.IPFamilies {
			families = append(families, string(f))
		}
		w.write(0, "IP Families:\t%s\n", joinOrNone(families, ","))
		w.write(0, "IP:\t%s\n", spec.ClusterIP)
		w.write(0, "IPs:\t%s\n", joinOrNone(spec.ClusterIPs, ","))
		if len(spec.ExternalIPs) > 0 {
			w.write(0, "External IPs:\t%s\n", strings.Join(spec.ExternalIPs, ","))
		}
		if spec.LoadBalancerIP != "" {
			w.write(0, "Desired LoadBalancer IP:\t%s\n", spec.LoadBalancerIP)
		}
		if spec.ExternalName != "" {
			w.write(0, "External Name:\t%s\n", spec.ExternalName)
		}
		if ing := svc.Status.LoadBalancer.Ingress; len(ing) > 0 {
			w.write(0, "LoadBalancer Ingress:\t%s\n", loadBalancerIngress(ing))
		}
		for _, p := range spec.Ports {
			describeServicePort(w, p, slices)
		}
		w.write(0, "Session Affinity:\t%s\n", spec.SessionAffinity)
		if spec.ExternalTrafficPolicy != "" {
			w.write(0, "External Traffic Policy:\t%s\n", spec.ExternalTrafficPolicy)
		}
		if spec.InternalTrafficPolicy != nil {
			w.write(0, "Internal Traffic Policy:\t%s\n", *spec.InternalTrafficPolicy)
		}
		if spec.HealthCheckNodePort != 0 {
			w.write(0, "HealthCheck NodePort:\t%d\n", spec.HealthCheckNodePort)
		}
		if len(spec.LoadBalancerSourceRanges) > 0 {
			w.write(0, "LoadBalancer Source Ranges:\t%s\n", strings.Join(spec.LoadBalancerSourceRanges, ","))
		}
		if spec.TrafficDistribution != nil {
			w.write(0, "Traffic Distribution:\t%s\n", *spec.TrafficDistribution)
		}
		describeEvents(w, events)
	})
}

func describeServicePort(w *describeWriter, p corev1.ServicePort, slices []discoveryv1.EndpointSlice) {
	name := p.Name
	if name == "" {
		name = "<unset>"
	}
	w.write(0, "Port:\t%s\t%d/%s\n", name, p.Port, p.Protocol)
	if p.TargetPort.Type == intstr.Int {
		w.write(0, "TargetPort:\t%d/%s\n", p.TargetPort.IntVal, p.Protocol)
	} else {
		w.write(0, "TargetPort:\t%s/%s\n", p.TargetPort.StrVal, p.Protocol)
	}
	if p.AppProtocol != nil {
		w.write(0, "AppProtocol:\t%s\n", *p.AppProtocol)
	}
	if p.NodePort != 0 {
		w.write(0, "NodePort:\t%s\t%d/%s\n", name, p.NodePort, p.Protocol)
	}
	w.write(0, "Endpoints:\t%s\n", endpointsForPort(slices, p.Name))
}

func joinOrNone(items []string, sep string) string {
	if len(items) == 0 {
		return "<none>"
	}
	return strings.Join(items, sep)
}

// loadBalancerIngress lists IPs (with their mode) or host names.
func loadBalancerIngress(ing []corev1.LoadBalancerIngress) string {
	parts := make([]string, 0, len(ing))
	for _, i := range ing {
		switch {
		case i.IP != "" && i.IPMode != nil:
			parts = append(parts, fmt.Sprintf("%s (%s)", i.IP, *i.IPMode))
		case i.IP != "":
			parts = append(parts, i.IP)
		default:
			parts = append(parts, i.Hostname)
		}
	}
	return strings.Join(parts, ", ")
}
