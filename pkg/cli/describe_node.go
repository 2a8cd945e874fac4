package cli

import (
	"context"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

const nodeRolePrefix = "node-role.kubernetes.io/"

func describeNodeByName(ctx context.Context, cs kubernetes.Interface, _, name string, showEvents bool) (string, error) {
	node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	sel := fields.AndSelectors(
		fields.OneTermEqualSelector("spec.nodeName", node.Name),
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodSucceeded)),
		fields.OneTermNotEqualSelector("status.phase", string(corev1.PodFailed)),
	)
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: sel.String(), Limit: 500})
	if err != nil {
		return "", err
	}
	var events *corev1.EventList
	if showEvents {
		// Node events carry either the node's uid or its name as uid.
		events, _ = searchEvents(ctx, cs, "Node", node)
		byName := node.DeepCopy()
		byName.UID = types.UID(node.Name)
		if more, err := searchEvents(ctx, cs, "Node", byName); err == nil && events != nil {
			events.Items = append(events.Items, more.Items...)
		}
	}
	lease, leaseErr := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, node.Name, metav1.GetOptions{})
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", node.Name)
		w.write(0, "Roles:\t%s\n", nodeRoles(node))
		printLabels(w, "Labels", node.Labels)
		printAnnotations(w, "Annotations", node.Annotations)
		w.write(0, "CreationTimestamp:\t%s\n", node.CreationTimestamp.Time.Format(time.RFC1123Z))
		printTaints(w, node.Spec.Taints)
		w.write(0, "Unschedulable:\t%v\n", node.Spec.Unschedulable)
		if leaseErr != nil {
			w.write(0, "Lease:\tFailed to get lease: %s\n", leaseErr)
		} else {
			w.write(0, "Lease:\n")
			w.write(1, "HolderIdentity:\t%s\n", optString(lease.Spec.HolderIdentity))
			w.write(1, "AcquireTime:\t%s\n", optTime(lease.Spec.AcquireTime))
			w.write(1, "RenewTime:\t%s\n", optTime(lease.Spec.RenewTime))
		}
		describeNodeStatus(w, node)
		describeNodeResources(w, pods, node)
		describeEvents(w, events)
	}), nil
}

func optString(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}

func optTime(t *metav1.MicroTime) string {
	if t == nil {
		return "<unset>"
	}
	return t.Time.Format(time.RFC1123Z)
}

func nodeRoles(node *corev1.Node) string {
	set := map[string]bool{}
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, nodeRolePrefix) && len(k) > len(nodeRolePrefix):
			set[strings.TrimPrefix(k, nodeRolePrefix)] = true
		case k == "kubernetes.io/role" && v != "":
			set[v] = true
		}
	}
	if len(set) == 0 {
		return "<none>"
	}
	roles := make([]string, 0, len(set))
	for r := range set {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	return strings.Join(roles, ",")
}

func printTaints(w *describeWriter, taints []corev1.Taint) {
	w.write(0, "Taints:\t")
	if len(taints) == 0 {
		w.line("<none>")
		return
	}
	ts := append([]corev1.Taint(nil), taints...)
	sort.Slice(ts, func(i, j int) bool {
		return string(ts[i].Effect)+","+ts[i].Key < string(ts[j].Effect)+","+ts[j].Key
	})
	for i, t := range ts {
		if i != 0 {
			w.write(0, "\t")
		}
		w.write(0, "%s\n", t.ToString())
	}
}

func describeNodeStatus(w *describeWriter, node *corev1.Node) {
	if len(node.Status.Conditions) > 0 {
		w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
		w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
		for _, c := range node.Status.Conditions {
			w.write(1, "%v \t%v \t%s \t%s \t%v \t%v\n", c.Type, c.Status,
				c.LastHeartbeatTime.Time.Format(time.RFC1123Z), c.LastTransitionTime.Time.Format(time.RFC1123Z), c.Reason, c.Message)
		}
	}
	w.write(0, "Addresses:\n")
	for _, a := range node.Status.Addresses {
		w.write(1, "%s:\t%s\n", a.Type, a.Address)
	}
	for _, part := range []struct {
		title string
		list  corev1.ResourceList
	}{{"Capacity", node.Status.Capacity}, {"Allocatable", node.Status.Allocatable}} {
		if len(part.list) == 0 {
			continue
		}
		w.write(0, "%s:\n", part.title)
		for _, n := range sortedResourceNames(part.list) {
			q := part.list[n]
			w.write(0, "  %s:\t%s\n", n, q.String())
		}
	}
	i := node.Status.NodeInfo
	w.write(0, "System Info:\n")
	for _, kv := range [][2]string{{"Machine ID", i.MachineID}, {"System UUID", i.SystemUUID}, {"Boot ID", i.BootID},
		{"Kernel Version", i.KernelVersion}, {"OS Image", i.OSImage}, {"Operating System", i.OperatingSystem},
		{"Architecture", i.Architecture}, {"Container Runtime Version", i.ContainerRuntimeVersion}, {"Kubelet Version", i.KubeletVersion}} {
		w.write(0, "  %s:\t%s\n", kv[0], kv[1])
	}
	if node.Spec.PodCIDR != "" {
		w.write(0, "PodCIDR:\t%s\n", node.Spec.PodCIDR)
	}
	if len(node.Spec.PodCIDRs) > 0 {
		w.write(0, "PodCIDRs:\t%s\n", strings.Join(node.Spec.PodCIDRs, ","))
	}
	if node.Spec.ProviderID != "" {
		w.write(0, "ProviderID:\t%s\n", node.Spec.ProviderID)
	}
}

// podTotals sums container requests and limits (init containers and
// pod-level resources are not modelled by miniapi's simulated pods).
func podTotals(pod *corev1.Pod) (reqs, limits corev1.ResourceList) {
	reqs, limits = corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		addResources(reqs, c.Resources.Requests)
		addResources(limits, c.Resources.Limits)
	}
	return reqs, limits
}

func addResources(into, from corev1.ResourceList) {
	for n, q := range from {
		cur := into[n]
		cur.Add(q)
		into[n] = cur
	}
}

func percent(part, whole resource.Quantity, milli bool) int64 {
	if milli {
		if whole.MilliValue() == 0 {
			return 0
		}
		return int64(float64(part.MilliValue()) / float64(whole.MilliValue()) * 100)
	}
	if whole.Value() == 0 {
		return 0
	}
	return int64(float64(part.Value()) / float64(whole.Value()) * 100)
}

func describeNodeResources(w *describeWriter, pods *corev1.PodList, node *corev1.Node) {
	w.write(0, "Non-terminated Pods:\t(%d in total)\n", len(pods.Items))
	w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
	w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
	alloc := node.Status.Capacity
	if len(node.Status.Allocatable) > 0 {
		alloc = node.Status.Allocatable
	}
	totalReqs, totalLimits := corev1.ResourceList{}, corev1.ResourceList{}
	for i := range pods.Items {
		p := &pods.Items[i]
		reqs, limits := podTotals(p)
		addResources(totalReqs, reqs)
		addResources(totalLimits, limits)
		cr, cl, mr, ml := reqs[corev1.ResourceCPU], limits[corev1.ResourceCPU], reqs[corev1.ResourceMemory], limits[corev1.ResourceMemory]
		w.write(1, "%s\t%s\t\t%s (%d%%)\t%s (%d%%)\t%s (%d%%)\t%s (%d%%)\t%s\n", p.Namespace, p.Name,
			cr.String(), percent(cr, *alloc.Cpu(), true), cl.String(), percent(cl, *alloc.Cpu(), true),
			mr.String(), percent(mr, *alloc.Memory(), false), ml.String(), percent(ml, *alloc.Memory(), false), since(p.CreationTimestamp.Time))
	}
	w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n")
	w.write(1, "Resource\tRequests\tLimits\n")
	w.write(1, "--------\t--------\t------\n")
	for _, r := range []struct {
		name  corev1.ResourceName
		whole resource.Quantity
		milli bool
	}{{corev1.ResourceCPU, *alloc.Cpu(), true}, {corev1.ResourceMemory, *alloc.Memory(), false},
		{corev1.ResourceEphemeralStorage, *alloc.StorageEphemeral(), false}} {
		rq, lq := totalReqs[r.name], totalLimits[r.name]
		w.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", r.name, rq.String(), percent(rq, r.whole, r.milli), lq.String(), percent(lq, r.whole, r.milli))
	}
	var hugePages []string
	for n := range alloc {
		if strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix) {
			hugePages = append(hugePages, string(n))
		}
	}
	sort.Strings(hugePages)
	for _, n := range hugePages {
		rq, lq := totalReqs[corev1.ResourceName(n)], totalLimits[corev1.ResourceName(n)]
		whole := alloc[corev1.ResourceName(n)]
		w.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", n, rq.String(), percent(rq, whole, false), lq.String(), percent(lq, whole, false))
	}
}
