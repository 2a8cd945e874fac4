package registry

// The defaults kube-apiserver's LimitRanger admission gives a new pod's
// containers from a LimitRange's Container items: a limit the container
// does not set comes from `default`, a request it does not set from
// `defaultRequest`, and the pod is annotated with what was set, in kube's
// words ("LimitRanger plugin set: cpu, memory request for container web;
// cpu limit for container web").

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// LimitRangerAnnotation records on a pod which requests and limits the
// LimitRanger admission set.
const LimitRangerAnnotation = "kubernetes.io/limit-ranger"

// containerDefaults gathers the default limits and requests of every
// Container item of lr (a later item wins for the same resource, as in
// kube).
func containerDefaults(lr *corev1.LimitRange) (limits, requests corev1.ResourceList) {
	limits, requests = corev1.ResourceList{}, corev1.ResourceList{}
	for _, item := range lr.Spec.Limits {
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		for name, q := range item.DefaultRequest {
			requests[name] = q.DeepCopy()
		}
		for name, q := range item.Default {
			limits[name] = q.DeepCopy()
		}
	}
	return limits, requests
}

// applyLimitRangeDefaults fills the requests and limits pod's containers
// and init containers leave out from lr's Container defaults and
// annotates the pod with what it set. It reports whether it set anything.
func applyLimitRangeDefaults(lr *corev1.LimitRange, pod *corev1.Pod) bool {
	limits, requests := containerDefaults(lr)
	var notes []string
	for i := range pod.Spec.Containers {
		notes = append(notes, fillContainerResources(&pod.Spec.Containers[i], "container", limits, requests)...)
	}
	for i := range pod.Spec.InitContainers {
		notes = append(notes, fillContainerResources(&pod.Spec.InitContainers[i], "init container", limits, requests)...)
	}
	if len(notes) == 0 {
		return false
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[LimitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
	return true
}

// fillContainerResources sets the missing limits and requests of c and
// returns kube's notes on them: the request note first, then the limit
// note, each naming its resources in sorted order.
func fillContainerResources(c *corev1.Container, kind string, limits, requests corev1.ResourceList) []string {
	setLimits := fillMissing(&c.Resources.Limits, limits)
	setRequests := fillMissing(&c.Resources.Requests, requests)
	var notes []string
	if len(setRequests) > 0 {
		notes = append(notes, strings.Join(setRequests, ", ")+" request for "+kind+" "+c.Name)
	}
	if len(setLimits) > 0 {
		notes = append(notes, strings.Join(setLimits, ", ")+" limit for "+kind+" "+c.Name)
	}
	return notes
}

// fillMissing copies into *list each of defaults' resources it lacks and
// returns their names, sorted.
func fillMissing(list *corev1.ResourceList, defaults corev1.ResourceList) []string {
	var set []string
	for name, q := range defaults {
		if _, ok := (*list)[name]; ok {
			continue
		}
		if *list == nil {
			*list = corev1.ResourceList{}
		}
		(*list)[name] = q.DeepCopy()
		set = append(set, string(name))
	}
	sort.Strings(set)
	return set
}
