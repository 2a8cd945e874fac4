//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

package endpoints

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/miniapi/miniapi/pkg/controllers/internal/servicepods"
)

// portEntry is one pod address reached on one Service port (port nil:
// a headless Service without ports).
type portEntry struct {
	addr  corev1.EndpointAddress
	ready bool
	port  *corev1.EndpointPort
}

// desiredSubsets lists what svc's Endpoints should hold for pods, in
// kube's canonical layout (see Repack).
func desiredSubsets(svc *corev1.Service, pods []*corev1.Pod) []corev1.EndpointSubset {
	var entries []portEntry
	ipv6 := len(svc.Spec.IPFamilies) > 0 && svc.Spec.IPFamilies[0] == corev1.IPv6Protocol
	for _, pod := range pods {
		if !servicepods.Included(pod, svc.Spec.PublishNotReadyAddresses) {
			continue
		}
		ips := servicepods.IPs(pod, ipv6)
		if len(ips) == 0 {
			continue // no address of the Service's family
		}
		node := pod.Spec.NodeName
		addr := corev1.EndpointAddress{
			IP:        ips[0],
			NodeName:  &node,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		}
		if servicepods.SetHostname(pod, svc) {
			addr.Hostname = pod.Spec.Hostname
		}
		ready := svc.Spec.PublishNotReadyAddresses || servicepods.Ready(pod)
		if len(svc.Spec.Ports) == 0 {
			if svc.Spec.ClusterIP == corev1.ClusterIPNone {
				entries = append(entries, portEntry{addr: addr, ready: ready})
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			num, err := servicepods.FindPort(pod, sp)
			if err != nil {
				continue // this pod does not serve this port
			}
			entries = append(entries, portEntry{addr: addr, ready: ready, port: &corev1.EndpointPort{
				Name: sp.Name, Port: num, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol,
			}})
		}
	}
	return Repack(subsetsOf(entries))
}

// truncate keeps at most maxCapacity addresses, as kube does: ready ones
// first; each subset keeps its share, rounded up. It reports whether
// anything was dropped.
func truncate(subsets []corev1.EndpointSubset) bool {
	ready, notReady := 0, 0
	for _, ss := range subsets {
		ready += len(ss.Addresses)
		notReady += len(ss.NotReadyAddresses)
	}
	if ready+notReady <= maxCapacity {
		return false
	}
	cutReady := ready > maxCapacity
	limit, total := maxCapacity-ready, notReady
	if cutReady {
		limit, total = maxCapacity, ready
	}
	left := limit
	for i := range subsets {
		ss := &subsets[i]
		list := &ss.NotReadyAddresses
		if cutReady {
			list = &ss.Addresses
			ss.NotReadyAddresses = nil
		}
		share := min(int(math.Ceil(float64(len(*list))/float64(total)*float64(limit))), left)
		if len(*list) > share {
			*list = (*list)[:share]
		}
		left -= len(*list)
	}
	return true
}

// subsetsOf puts each entry in a subset of its own; Repack merges them.
func subsetsOf(entries []portEntry) []corev1.EndpointSubset {
	out := make([]corev1.EndpointSubset, 0, len(entries))
	for _, e := range entries {
		ss := corev1.EndpointSubset{}
		if e.ready {
			ss.Addresses = []corev1.EndpointAddress{e.addr}
		} else {
			ss.NotReadyAddresses = []corev1.EndpointAddress{e.addr}
		}
		if e.port != nil {
			ss.Ports = []corev1.EndpointPort{*e.port}
		}
		out = append(out, ss)
	}
	return out
}
