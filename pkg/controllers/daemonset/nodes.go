package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// defaultTolerations are the tolerations kube's DaemonSet controller adds
// to every daemon pod, so daemons keep running on sick or cordoned
// nodes. It does not tolerate node.kubernetes.io/not-ready:NoSchedule,
// the taint a node gets before its kubelet reports (so a hand-made Node
// wants no daemon pod, as the reference shows).
func defaultTolerations(spec *corev1.PodSpec) []corev1.Toleration {
	exists := func(key string, effect corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
	}
	t := []corev1.Toleration{
		exists(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute),
		exists(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute),
		exists(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule),
		exists(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule),
	}
	if spec.HostNetwork {
		t = append(t, exists(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule))
	}
	return t
}

// withTolerations adds the default tolerations the spec lacks.
func withTolerations(spec *corev1.PodSpec) []corev1.Toleration {
	out := append([]corev1.Toleration(nil), spec.Tolerations...)
	for _, d := range defaultTolerations(spec) {
		if !hasToleration(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func hasToleration(ts []corev1.Toleration, t corev1.Toleration) bool {
	for _, have := range ts {
		if have.Key == t.Key && have.Operator == t.Operator && have.Effect == t.Effect && have.Value == t.Value {
			return true
		}
	}
	return false
}

// shouldRun says whether ds wants a pod on node: the node exists, is not
// being deleted, matches the template's nodeSelector and required node
// affinity, and every NoSchedule/NoExecute taint is tolerated.
func shouldRun(ds *appsv1.DaemonSet, node *corev1.Node) bool {
	if node.DeletionTimestamp != nil {
		return false
	}
	pod := &corev1.Pod{Spec: ds.Spec.Template.Spec}
	if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !ok {
		return false
	}
	tolerations := withTolerations(&ds.Spec.Template.Spec)
	for i := range node.Spec.Taints {
		taint := &node.Spec.Taints[i]
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !tolerated(tolerations, taint) {
			return false
		}
	}
	return true
}

func tolerated(ts []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range ts {
		if ts[i].ToleratesTaint(klog.Background(), taint, false) {
			return true
		}
	}
	return false
}

// nodeAffinityFor returns the template's affinity with its required node
// terms replaced by one naming node, as kube's controller writes it.
func nodeAffinityFor(a *corev1.Affinity, node string) *corev1.Affinity {
	out := &corev1.Affinity{}
	if a != nil {
		out = a.DeepCopy()
	}
	if out.NodeAffinity == nil {
		out.NodeAffinity = &corev1.NodeAffinity{}
	}
	out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
	}}}
	return out
}

// podNode is the node a daemon pod is for: its binding, else the node
// its required affinity names.
func podNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}
