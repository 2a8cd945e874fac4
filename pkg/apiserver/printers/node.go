package printers

import (
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	nodeRolePrefix = "node-role.kubernetes.io/"
	nodeRoleLabel  = "kubernetes.io/role"
)

func nodeCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	n := obj.(*corev1.Node)
	info := n.Status.NodeInfo
	return []interface{}{
		n.Name, nodeStatus(n), nodeRoles(n), age(n.CreationTimestamp, now), info.KubeletVersion,
		nodeAddress(n, corev1.NodeInternalIP), nodeAddress(n, corev1.NodeExternalIP),
		orUnknown(info.OSImage), orUnknown(info.KernelVersion), orUnknown(info.ContainerRuntimeVersion),
	}, nil
}

// nodeStatus is Ready, NotReady or Unknown from the Ready condition, with
// SchedulingDisabled added for cordoned nodes.
func nodeStatus(n *corev1.Node) string {
	var status []string
	for _, c := range n.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		if c.Status == corev1.ConditionTrue {
			status = append(status, string(c.Type))
		} else {
			status = append(status, "Not"+string(c.Type))
		}
		break
	}
	if len(status) == 0 {
		status = append(status, "Unknown")
	}
	if n.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
	}
	return strings.Join(status, ",")
}

// nodeRoles reads node-role.kubernetes.io/<role> and kubernetes.io/role
// labels, sorted and without duplicates.
func nodeRoles(n *corev1.Node) string {
	set := map[string]bool{}
	for k, v := range n.Labels {
		switch {
		case strings.HasPrefix(k, nodeRolePrefix):
			if role := strings.TrimPrefix(k, nodeRolePrefix); role != "" {
				set[role] = true
			}
		case k == nodeRoleLabel && v != "":
			set[v] = true
		}
	}
	roles := make([]string, 0, len(set))
	for r := range set {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	return orNone(strings.Join(roles, ","))
}

func nodeAddress(n *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}
