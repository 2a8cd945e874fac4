package kubelet

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runningStatus is the status a kubelet posts once every container of pod
// has started: phase Running, all conditions True, addresses, and a running
// status per container. PodScheduled keeps its time if already set; other
// fields the kubelet does not own (qosClass, nominatedNodeName) are kept.
func runningStatus(pod *corev1.Pod, hostIP, podIP string, now metav1.Time) corev1.PodStatus {
	st := *pod.Status.DeepCopy()
	st.Phase = corev1.PodRunning
	st.Reason, st.Message = "", ""
	st.HostIP = hostIP
	st.HostIPs = []corev1.HostIP{{IP: hostIP}}
	st.PodIP = podIP
	st.PodIPs = []corev1.PodIP{{IP: podIP}}
	if st.StartTime == nil {
		st.StartTime = &now
	}
	if st.QOSClass == "" {
		st.QOSClass = qosClass(pod)
	}
	scheduledAt := now
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
			scheduledAt = c.LastTransitionTime
		}
	}
	cond := func(t corev1.PodConditionType, at metav1.Time) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: at}
	}
	// The kubelet's order, as kubectl describe pod shows it.
	st.Conditions = []corev1.PodCondition{
		cond(corev1.PodReadyToStartContainers, now),
		cond(corev1.PodInitialized, now),
		cond(corev1.PodReady, now),
		cond(corev1.ContainersReady, now),
		cond(corev1.PodScheduled, scheduledAt),
	}
	st.InitContainerStatuses = nil
	for _, c := range pod.Spec.InitContainers {
		cs := containerStatus(pod, c, now)
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now, ContainerID: cs.ContainerID,
		}}
		cs.Ready, cs.Started = true, ptrTo(false)
		st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
	}
	st.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, containerStatus(pod, c, now))
	}
	return st
}

func containerStatus(pod *corev1.Pod, c corev1.Container, now metav1.Time) corev1.ContainerStatus {
	image := normalizeImage(c.Image)
	return corev1.ContainerStatus{
		Name:         c.Name,
		State:        corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		Ready:        true,
		Started:      ptrTo(true),
		RestartCount: 0,
		Image:        image,
		ImageID:      imageID(image),
		ContainerID:  containerID(pod, c.Name),
	}
}

func ptrTo[T any](v T) *T { return &v }

// containerID is stable for a pod's container, so a repeated reconcile
// writes the same status.
func containerID(pod *corev1.Pod, container string) string {
	sum := sha256.Sum256([]byte(string(pod.UID) + "/" + container))
	return "miniapi://" + hex.EncodeToString(sum[:])
}

// normalizeImage spells an image reference the way container runtimes
// report it: "nginx" is docker.io/library/nginx:latest.
func normalizeImage(ref string) string {
	if ref == "" {
		return ref
	}
	name, rest := ref, ""
	if i := strings.IndexAny(ref, "@"); i >= 0 {
		name, rest = ref[:i], ref[i:]
	}
	slash := strings.IndexByte(name, '/')
	domain := ""
	if slash >= 0 {
		domain = name[:slash]
	}
	switch {
	case slash < 0:
		name = "docker.io/library/" + name
	case !strings.ContainsAny(domain, ".:") && domain != "localhost":
		name = "docker.io/" + name
	}
	lastSlash := strings.LastIndexByte(name, '/')
	if rest == "" && !strings.Contains(name[lastSlash+1:], ":") {
		name += ":latest"
	}
	return name + rest
}

// imageID is a made-up but stable digest reference for image: no image is
// pulled, so there is no real digest.
func imageID(image string) string {
	repo := image
	if i := strings.IndexByte(repo, '@'); i >= 0 {
		return image
	}
	if i := strings.LastIndexByte(repo, ':'); i > strings.LastIndexByte(repo, '/') {
		repo = repo[:i]
	}
	sum := sha256.Sum256([]byte(image))
	return repo + "@sha256:" + hex.EncodeToString(sum[:])
}

// qosClass is the pod's quality-of-service class as kube-apiserver derives
// it: no requests or limits at all is BestEffort; limits equal to requests
// for cpu and memory in every container is Guaranteed; else Burstable.
func qosClass(pod *corev1.Pod) corev1.PodQOSClass {
	any, guaranteed := false, true
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
			any = true
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			l, hasLimit := c.Resources.Limits[r]
			req, hasReq := c.Resources.Requests[r]
			if !hasLimit || (hasReq && req.Cmp(l) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !any:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}
