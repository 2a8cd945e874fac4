// Package node keeps miniapi's simulated Nodes in the API: exactly
// Config.Count Ready nodes named miniapi-node-1…N, each with capacity, an
// InternalIP and a pod CIDR the simulated kubelet allocates pod IPs from. No
// machine stands behind them; they exist so that pods have somewhere to be
// scheduled and kubectl get nodes looks like a small cluster.
package node

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SimulatedAnnotation marks the Nodes this controller made, so that it
// removes its own surplus nodes and never a node someone else registered.
const SimulatedAnnotation = "miniapi.io/simulated-node"

// MaxCount is the most simulated nodes: each gets a /20 pod CIDR inside
// 10.244.0.0–10.255.255.255.
const MaxCount = 192

// Simulated facts reported in every node's status.nodeInfo.
const (
	KubeletVersion          = "v1.37.2"
	ContainerRuntimeVersion = "miniapi://simulated"
	OSImage                 = "miniapi simulated node"
	KernelVersion           = "6.8.0-miniapi"
)

// Name is the name of the i-th simulated node (1-based).
func Name(i int) string { return fmt.Sprintf("miniapi-node-%d", i) }

// InternalIP is the i-th node's address: 10.0.0.i (counting on past .255).
func InternalIP(i int) string { return addr(10<<24, uint32(i)).String() }

// PodCIDR is the i-th node's pod range, a /20 from 10.244.0.0 up.
func PodCIDR(i int) string {
	base := uint32(10)<<24 | uint32(244)<<16
	return netip.PrefixFrom(addr(base, uint32(i-1)<<12), 20).String()
}

func addr(base, offset uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], base+offset)
	return netip.AddrFrom4(b)
}

// Desired returns the i-th node as this controller wants it: metadata and
// spec for create, status for the status subresource.
func Desired(i int, now metav1.Time) *corev1.Node {
	name := Name(i)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname":  name,
				"kubernetes.io/os":        "linux",
				"kubernetes.io/arch":      "amd64",
				"beta.kubernetes.io/os":   "linux",
				"beta.kubernetes.io/arch": "amd64",
			},
			Annotations: map[string]string{
				SimulatedAnnotation:            "true",
				"node.alpha.kubernetes.io/ttl": "0",
			},
		},
		Spec: corev1.NodeSpec{
			PodCIDR:  PodCIDR(i),
			PodCIDRs: []string{PodCIDR(i)},
		},
		Status: desiredStatus(i, now),
	}
}

func desiredStatus(i int, now metav1.Time) corev1.NodeStatus {
	res := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("4"),
		corev1.ResourceMemory:           resource.MustParse("16Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
	}
	return corev1.NodeStatus{
		Capacity:    res,
		Allocatable: res.DeepCopy(),
		Conditions:  conditions(now),
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: InternalIP(i)},
			{Type: corev1.NodeHostName, Address: Name(i)},
		},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		NodeInfo: corev1.NodeSystemInfo{
			MachineID:               fmt.Sprintf("%032x", i),
			SystemUUID:              fmt.Sprintf("00000000-0000-0000-0000-%012x", i),
			BootID:                  fmt.Sprintf("00000000-0000-0000-0000-%012x", i),
			KernelVersion:           KernelVersion,
			OSImage:                 OSImage,
			ContainerRuntimeVersion: ContainerRuntimeVersion,
			KubeletVersion:          KubeletVersion,
			OperatingSystem:         "linux",
			Architecture:            "amd64",
		},
	}
}

// conditions are a healthy kubelet's, in the order the kubelet writes them.
func conditions(now metav1.Time) []corev1.NodeCondition {
	c := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	return []corev1.NodeCondition{
		c(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		c(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		c(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		c(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
	}
}

// statusCurrent reports whether have already says what want says, ignoring
// timestamps, so that a healthy node costs no write.
func statusCurrent(have, want corev1.NodeStatus) bool {
	if len(have.Conditions) != len(want.Conditions) || len(have.Addresses) != len(want.Addresses) {
		return false
	}
	for i, c := range want.Conditions {
		h := have.Conditions[i]
		if h.Type != c.Type || h.Status != c.Status || h.Reason != c.Reason || h.Message != c.Message {
			return false
		}
	}
	for i, a := range want.Addresses {
		if have.Addresses[i] != a {
			return false
		}
	}
	for name, q := range want.Capacity {
		if hq, ok := have.Capacity[name]; !ok || hq.Cmp(q) != 0 {
			return false
		}
	}
	return have.NodeInfo == want.NodeInfo
}

// keepTransitionTimes copies have's lastTransitionTime into want for each
// condition whose status did not change, as the kubelet does.
func keepTransitionTimes(want *corev1.NodeStatus, have corev1.NodeStatus) {
	for i := range want.Conditions {
		for _, h := range have.Conditions {
			if h.Type == want.Conditions[i].Type && h.Status == want.Conditions[i].Status {
				want.Conditions[i].LastTransitionTime = h.LastTransitionTime
			}
		}
	}
}
