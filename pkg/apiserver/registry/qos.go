package registry

// A pod's quality-of-service class, computed on create the way
// kube-apiserver does (only cpu and memory count).

import (
	corev1 "k8s.io/api/core/v1"
)

var qosResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// podQOSClass is Guaranteed when every container limits cpu and memory and
// requests exactly its limits, BestEffort when nothing requests or limits
// cpu or memory, and Burstable otherwise. Pod-level resources, when set,
// decide alone.
func podQOSClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	var all []corev1.ResourceRequirements
	if spec.Resources != nil {
		all = []corev1.ResourceRequirements{*spec.Resources}
	} else {
		for _, c := range spec.InitContainers {
			all = append(all, c.Resources)
		}
		for _, c := range spec.Containers {
			all = append(all, c.Resources)
		}
	}
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed := true
	for _, r := range all {
		addPositive(requests, r.Requests)
		found := addPositive(limits, r.Limits)
		if found != len(qosResources) {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// addPositive adds the positive cpu and memory quantities of from into
// sum, and returns how many of the two were positive.
func addPositive(sum, from corev1.ResourceList) int {
	found := 0
	for _, name := range qosResources {
		q, ok := from[name]
		if !ok || q.Sign() <= 0 {
			continue
		}
		found++
		total := sum[name]
		total.Add(q)
		sum[name] = total
	}
	return found
}
