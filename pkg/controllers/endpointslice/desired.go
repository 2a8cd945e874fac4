package endpointslice

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"maps"
	"net/netip"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/dump"

	"github.com/miniapi/miniapi/pkg/controllers/internal/servicepods"
)

// portGroup is the endpoints that share one set of ports: one or more
// slices hold them.
type portGroup struct {
	ports     []discoveryv1.EndpointPort // in kube's order (see sortPorts); nil for none
	endpoints []discoveryv1.Endpoint     // sorted by address
}

// desiredGroups computes the endpoints of addrType the Service's pods
// give, grouped by their ports and keyed by portsKey. A pod on a node the
// cache does not know is left out and reported, unless the Service
// publishes not-ready addresses.
func (c *Controller) desiredGroups(svc *corev1.Service, pods []*corev1.Pod, addrType discoveryv1.AddressType) (map[string]*portGroup, []error) {
	groups := map[string]*portGroup{}
	var errs []error
	for _, pod := range pods {
		if !servicepods.Included(pod, true) {
			continue
		}
		node, err := c.nodes.Get(pod.Spec.NodeName)
		if err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, err)
				continue
			}
			if !svc.Spec.PublishNotReadyAddresses {
				c.log.Info("skipping Pod for Service, Node not found", "pod", pod.Namespace+"/"+pod.Name,
					"service", svc.Namespace+"/"+svc.Name, "node", pod.Spec.NodeName)
				errs = append(errs, fmt.Errorf("skipping Pod %s for Service %s/%s: Node %s Not Found", pod.Name, svc.Namespace, svc.Name, pod.Spec.NodeName))
				continue
			}
			node = nil
		}
		ep, ok := podEndpoint(pod, node, svc, addrType)
		if !ok {
			continue
		}
		ports := podPorts(svc, pod)
		key := portsKey(ports)
		g, ok := groups[key]
		if !ok {
			g = &portGroup{ports: ports}
			groups[key] = g
		}
		g.endpoints = append(g.endpoints, ep)
	}
	for _, g := range groups {
		sort.SliceStable(g.endpoints, func(i, j int) bool { return lessEndpoint(&g.endpoints[i], &g.endpoints[j]) })
	}
	return groups, errs
}

// podEndpoint is pod's endpoint for addrType, with kube's conditions; ok
// is false when the pod has no address of that family.
func podEndpoint(pod *corev1.Pod, node *corev1.Node, svc *corev1.Service, addrType discoveryv1.AddressType) (discoveryv1.Endpoint, bool) {
	addrs := servicepods.IPs(pod, addrType == discoveryv1.AddressTypeIPv6)
	if len(addrs) == 0 {
		return discoveryv1.Endpoint{}, false
	}
	serving := servicepods.Ready(pod)
	terminating := pod.DeletionTimestamp != nil
	// A terminating pod is never ready, unless the Service publishes
	// not-ready addresses.
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := discoveryv1.Endpoint{
		Addresses:  addrs,
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if pod.Spec.NodeName != "" {
		name := pod.Spec.NodeName
		ep.NodeName = &name
	}
	if node != nil {
		if zone := node.Labels[corev1.LabelTopologyZone]; zone != "" {
			ep.Zone = &zone
		}
	}
	if servicepods.SetHostname(pod, svc) {
		hostname := pod.Spec.Hostname
		ep.Hostname = &hostname
	}
	return ep, true
}

// podPorts resolves each Service port on pod; a port the pod does not
// serve is left out. nil when there are none.
func podPorts(svc *corev1.Service, pod *corev1.Pod) []discoveryv1.EndpointPort {
	var ports []discoveryv1.EndpointPort
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		num, err := servicepods.FindPort(pod, sp)
		if err != nil {
			continue
		}
		name, proto := sp.Name, sp.Protocol
		ports = append(ports, discoveryv1.EndpointPort{Name: &name, Port: &num, Protocol: &proto, AppProtocol: sp.AppProtocol})
	}
	sortPorts(ports)
	return ports
}

// hashOf is kube's hash of a value for ordering slice ports: FNV-128a of
// its dump, in hex.
func hashOf(v any) string {
	h := fnv.New128a()
	fmt.Fprint(h, dump.ForHash(v))
	return hex.EncodeToString(h.Sum(nil))
}

// sortPorts puts ports in kube's order (by hash), which is also the order
// a slice lists them in.
func sortPorts(ports []discoveryv1.EndpointPort) {
	sort.SliceStable(ports, func(i, j int) bool { return hashOf(ports[i]) < hashOf(ports[j]) })
}

// portsKey names a set of ports, whatever their order.
func portsKey(ports []discoveryv1.EndpointPort) string {
	sorted := slices.Clone(ports)
	if sorted == nil {
		sorted = []discoveryv1.EndpointPort{}
	}
	sortPorts(sorted)
	return hashOf(sorted)
}

// endpointKey names an endpoint by what identifies it: its pod and
// addresses (conditions and node may change in place).
func endpointKey(ep *discoveryv1.Endpoint) string {
	ref := ""
	if ep.TargetRef != nil {
		ref = ep.TargetRef.Namespace + "/" + ep.TargetRef.Name
	}
	addrs := slices.Clone(ep.Addresses)
	slices.Sort(addrs)
	return ref + "|" + strings.Join(addrs, ",")
}

// lessEndpoint orders endpoints by first address (as IPs), then pod.
func lessEndpoint(a, b *discoveryv1.Endpoint) bool {
	if len(a.Addresses) > 0 && len(b.Addresses) > 0 && a.Addresses[0] != b.Addresses[0] {
		x, errX := netip.ParseAddr(a.Addresses[0])
		y, errY := netip.ParseAddr(b.Addresses[0])
		if errX == nil && errY == nil {
			return x.Less(y)
		}
		return a.Addresses[0] < b.Addresses[0]
	}
	return endpointKey(a) < endpointKey(b)
}

// addressTypes are the slice address types a Service gets: one per IP
// family.
func addressTypes(svc *corev1.Service) []discoveryv1.AddressType {
	var out []discoveryv1.AddressType
	for _, f := range svc.Spec.IPFamilies {
		if f == corev1.IPv6Protocol {
			out = append(out, discoveryv1.AddressTypeIPv6)
		} else {
			out = append(out, discoveryv1.AddressTypeIPv4)
		}
	}
	if len(out) == 0 { // a server that does not fill ipFamilies
		if ip, err := netip.ParseAddr(svc.Spec.ClusterIP); err == nil && ip.Is6() {
			return []discoveryv1.AddressType{discoveryv1.AddressTypeIPv6}
		}
		return []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}
	}
	return out
}

// desiredLabels are the Service's labels without the reserved ones, the
// headless mark for a Service without a cluster IP, the Service's name
// and the managed-by label.
func desiredLabels(svc *corev1.Service) map[string]string {
	labels := maps.Clone(svc.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	delete(labels, corev1.IsHeadlessService)
	if servicepods.Headless(svc) {
		labels[corev1.IsHeadlessService] = ""
	}
	labels[discoveryv1.LabelServiceName] = svc.Name
	labels[discoveryv1.LabelManagedBy] = ControllerName
	return labels
}

// generateName is the prefix of a new slice's name: "<service>-", or the
// bare name when that would be too long to be a name prefix.
func generateName(svc *corev1.Service) string {
	prefix := svc.Name + "-"
	// 5 characters are appended; the whole must be a DNS subdomain.
	if len(validation.IsDNS1123Subdomain(prefix+"abcde")) != 0 {
		return svc.Name
	}
	return prefix
}

// sameEndpoint reports whether two endpoints with the same key publish
// the same thing.
func sameEndpoint(a, b *discoveryv1.Endpoint) bool {
	eqStr := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqBool := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	refEq := (a.TargetRef == nil) == (b.TargetRef == nil) &&
		(a.TargetRef == nil || a.TargetRef.UID == b.TargetRef.UID)
	return eqStr(a.NodeName, b.NodeName) && eqStr(a.Zone, b.Zone) && eqStr(a.Hostname, b.Hostname) &&
		eqBool(a.Conditions.Ready, b.Conditions.Ready) && eqBool(a.Conditions.Serving, b.Conditions.Serving) &&
		eqBool(a.Conditions.Terminating, b.Conditions.Terminating) && refEq &&
		slices.Equal(a.Addresses, b.Addresses)
}
