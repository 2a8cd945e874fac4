package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// describeContainers writes the Containers (or Init Containers) block;
// statuses are given for pods, nil for templates.
func describeContainers(w *describeWriter, label string, cs []corev1.Container, statuses []corev1.ContainerStatus, space string) {
	byName := map[string]corev1.ContainerStatus{}
	for _, s := range statuses {
		byName[s.Name] = s
	}
	none := ""
	if len(cs) == 0 {
		none = " <none>"
	}
	w.write(0, "%s%s:%s\n", space, label, none)
	nameIndent := ""
	if space != "" {
		nameIndent = " "
	}
	for _, c := range cs {
		st, ok := byName[c.Name]
		w.write(1, "%s%v:\n", nameIndent, c.Name)
		if ok {
			w.write(2, "Container ID:\t%s\n", st.ContainerID)
		}
		w.write(2, "Image:\t%s\n", c.Image)
		if ok {
			w.write(2, "Image ID:\t%s\n", st.ImageID)
		}
		writePorts(w, "Port", "Ports", c.Ports, func(p corev1.ContainerPort) int32 { return p.ContainerPort })
		writePorts(w, "Host Port", "Host Ports", c.Ports, func(p corev1.ContainerPort) int32 { return p.HostPort })
		writeLines(w, "Command", c.Command)
		writeLines(w, "Args", c.Args)
		if ok {
			describeContainerState(w, "State", st.State)
			if st.LastTerminationState.Terminated != nil {
				describeContainerState(w, "Last State", st.LastTerminationState)
			}
			w.write(2, "Ready:\t%v\n", boolWord(st.Ready))
			w.write(2, "Restart Count:\t%d\n", st.RestartCount)
		}
		describeResources(w, &c.Resources, 2)
		for _, p := range []struct {
			name  string
			probe *corev1.Probe
		}{{"Liveness", c.LivenessProbe}, {"Readiness", c.ReadinessProbe}, {"Startup", c.StartupProbe}} {
			if p.probe != nil {
				w.write(2, "%s:\t%s\n", p.name, describeProbe(p.probe))
			}
		}
		describeEnv(w, c.Env)
		describeMounts(w, c.VolumeMounts)
	}
}

func writePorts(w *describeWriter, one, many string, ports []corev1.ContainerPort, port func(corev1.ContainerPort) int32) {
	parts := make([]string, 0, len(ports))
	for _, p := range ports {
		s := fmt.Sprintf("%d/%s", port(p), p.Protocol)
		if p.Name != "" {
			s = fmt.Sprintf("%s (%s)", s, p.Name)
		}
		parts = append(parts, s)
	}
	joined := strings.Join(parts, ", ")
	switch {
	case strings.Contains(joined, ","):
		w.write(2, "%s:\t%s\n", many, joined)
	case joined == "":
		w.write(2, "%s:\t<none>\n", one)
	default:
		w.write(2, "%s:\t%s\n", one, joined)
	}
}

func writeLines(w *describeWriter, title string, items []string) {
	if len(items) == 0 {
		return
	}
	w.write(2, "%s:\n", title)
	for _, it := range items {
		for _, s := range strings.Split(it, "\n") {
			w.write(3, "%s\n", s)
		}
	}
}

func boolWord(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func describeContainerState(w *describeWriter, name string, s corev1.ContainerState) {
	switch {
	case s.Running != nil:
		w.write(2, "%s:\tRunning\n", name)
		w.write(3, "Started:\t%v\n", s.Running.StartedAt.Time.Format(time.RFC1123Z))
	case s.Waiting != nil:
		w.write(2, "%s:\tWaiting\n", name)
		if s.Waiting.Reason != "" {
			w.write(3, "Reason:\t%s\n", s.Waiting.Reason)
		}
	case s.Terminated != nil:
		t := s.Terminated
		w.write(2, "%s:\tTerminated\n", name)
		if t.Reason != "" {
			w.write(3, "Reason:\t%s\n", t.Reason)
		}
		if t.Message != "" {
			w.write(3, "Message:\t%s\n", t.Message)
		}
		w.write(3, "Exit Code:\t%d\n", t.ExitCode)
		if t.Signal > 0 {
			w.write(3, "Signal:\t%d\n", t.Signal)
		}
		w.write(3, "Started:\t%s\n", t.StartedAt.Time.Format(time.RFC1123Z))
		w.write(3, "Finished:\t%s\n", t.FinishedAt.Time.Format(time.RFC1123Z))
	default:
		w.write(2, "%s:\tWaiting\n", name)
	}
}

func describeResources(w *describeWriter, r *corev1.ResourceRequirements, level int) {
	for _, part := range []struct {
		title string
		list  corev1.ResourceList
	}{{"Limits", r.Limits}, {"Requests", r.Requests}} {
		if len(part.list) == 0 {
			continue
		}
		w.write(level, "%s:\n", part.title)
		for _, name := range sortedResourceNames(part.list) {
			q := part.list[name]
			w.write(level+1, "%s:\t%s\n", name, q.String())
		}
	}
}

func sortedResourceNames(list corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(list))
	for n := range list {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// describeProbe is kubectl's one-line probe summary.
func describeProbe(p *corev1.Probe) string {
	attrs := fmt.Sprintf("delay=%ds timeout=%ds period=%ds successThreshold=%d failureThreshold=%d",
		p.InitialDelaySeconds, p.TimeoutSeconds, p.PeriodSeconds, p.SuccessThreshold, p.FailureThreshold)
	switch {
	case p.Exec != nil:
		return fmt.Sprintf("exec %v %s", p.Exec.Command, attrs)
	case p.HTTPGet != nil:
		u := &url.URL{Scheme: strings.ToLower(string(p.HTTPGet.Scheme)), Host: p.HTTPGet.Host, Path: p.HTTPGet.Path}
		if port := p.HTTPGet.Port.String(); port != "" {
			u.Host = net.JoinHostPort(p.HTTPGet.Host, port)
		}
		return fmt.Sprintf("http-get %s %s", u.String(), attrs)
	case p.TCPSocket != nil:
		return fmt.Sprintf("tcp-socket %s:%s %s", p.TCPSocket.Host, p.TCPSocket.Port.String(), attrs)
	case p.GRPC != nil:
		svc := ""
		if p.GRPC.Service != nil {
			svc = *p.GRPC.Service
		}
		return fmt.Sprintf("grpc <pod>:%d %s %s", p.GRPC.Port, svc, attrs)
	}
	return fmt.Sprintf("unknown %s", attrs)
}

func describeEnv(w *describeWriter, env []corev1.EnvVar) {
	if len(env) == 0 {
		w.write(2, "Environment:\t<none>\n")
		return
	}
	w.write(2, "Environment:\n")
	for _, e := range env {
		switch {
		case e.ValueFrom == nil:
			for i, s := range strings.Split(e.Value, "\n") {
				if i == 0 {
					w.write(3, "%s:\t%s\n", e.Name, s)
				} else {
					w.write(3, "\t%s\n", s)
				}
			}
		case e.ValueFrom.FieldRef != nil:
			w.write(3, "%s:\t (%s:%s)\n", e.Name, e.ValueFrom.FieldRef.APIVersion, e.ValueFrom.FieldRef.FieldPath)
		case e.ValueFrom.SecretKeyRef != nil:
			r := e.ValueFrom.SecretKeyRef
			w.write(3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %t\n", e.Name, r.Key, r.Name, r.Optional != nil && *r.Optional)
		case e.ValueFrom.ConfigMapKeyRef != nil:
			r := e.ValueFrom.ConfigMapKeyRef
			w.write(3, "%s:\t<set to the key '%s' of config map '%s'>\tOptional: %t\n", e.Name, r.Key, r.Name, r.Optional != nil && *r.Optional)
		}
	}
}

func describeMounts(w *describeWriter, mounts []corev1.VolumeMount) {
	if len(mounts) == 0 {
		w.write(2, "Mounts:\t<none>\n")
		return
	}
	w.write(2, "Mounts:\n")
	ms := append([]corev1.VolumeMount(nil), mounts...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].MountPath < ms[j].MountPath })
	for _, m := range ms {
		flags := []string{"rw"}
		if m.ReadOnly {
			flags = []string{"ro"}
		}
		if m.SubPath != "" {
			flags = append(flags, fmt.Sprintf("path=%q", m.SubPath))
		}
		w.write(3, "%s from %s (%s)\n", m.MountPath, m.Name, strings.Join(flags, ","))
	}
}

// describeVolumes covers the volume kinds miniapi's pods use; others print
// "<unknown>" rather than a wrong description.
func describeVolumes(w *describeWriter, volumes []corev1.Volume, space string) {
	if len(volumes) == 0 {
		w.write(0, "%sVolumes:\t<none>\n", space)
		return
	}
	w.write(0, "%sVolumes:\n", space)
	nameIndent := ""
	if space != "" {
		nameIndent = " "
	}
	for _, v := range volumes {
		w.write(1, "%s%v:\n", nameIndent, v.Name)
		src := v.VolumeSource
		switch {
		case src.HostPath != nil:
			typ := "<none>"
			if src.HostPath.Type != nil {
				typ = string(*src.HostPath.Type)
			}
			w.write(2, "Type:\tHostPath (bare host directory volume)\n    Path:\t%v\n    HostPathType:\t%v\n", src.HostPath.Path, typ)
		case src.EmptyDir != nil:
			limit := "<unset>"
			if src.EmptyDir.SizeLimit != nil && src.EmptyDir.SizeLimit.Sign() > 0 {
				limit = src.EmptyDir.SizeLimit.String()
			}
			w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t%v\n    SizeLimit:\t%v\n", src.EmptyDir.Medium, limit)
		case src.Secret != nil:
			w.write(2, "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t%v\n    Optional:\t%v\n",
				src.Secret.SecretName, src.Secret.Optional != nil && *src.Secret.Optional)
		case src.ConfigMap != nil:
			w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t%v\n    Optional:\t%v\n",
				src.ConfigMap.Name, src.ConfigMap.Optional != nil && *src.ConfigMap.Optional)
		case src.Projected != nil:
			describeProjected(w, src.Projected)
		default:
			w.write(1, "<unknown>\n")
		}
	}
}

func describeProjected(w *describeWriter, p *corev1.ProjectedVolumeSource) {
	w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
	for _, s := range p.Sources {
		switch {
		case s.Secret != nil:
			w.write(2, "SecretName:\t%v\n    Optional:\t%v\n", s.Secret.Name, s.Secret.Optional != nil && *s.Secret.Optional)
		case s.DownwardAPI != nil:
			w.write(2, "DownwardAPI:\ttrue\n")
		case s.ConfigMap != nil:
			w.write(2, "ConfigMapName:\t%v\n    Optional:\t%v\n", s.ConfigMap.Name, s.ConfigMap.Optional != nil && *s.ConfigMap.Optional)
		case s.ServiceAccountToken != nil && s.ServiceAccountToken.ExpirationSeconds != nil:
			w.write(2, "TokenExpirationSeconds:\t%d\n", *s.ServiceAccountToken.ExpirationSeconds)
		}
	}
}

func describePodByName(ctx context.Context, cs kubernetes.Interface, ns, name string, showEvents bool) (string, error) {
	pod, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	var events *corev1.EventList
	if showEvents {
		events, _ = searchEvents(ctx, cs, "Pod", pod)
	}
	return describePod(pod, events), nil
}

// describePod is kubectl's Pod layout.
func describePod(pod *corev1.Pod, events *corev1.EventList) string {
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", pod.Name)
		w.write(0, "Namespace:\t%s\n", pod.Namespace)
		if pod.Spec.Priority != nil {
			w.write(0, "Priority:\t%d\n", *pod.Spec.Priority)
		}
		if pod.Spec.PriorityClassName != "" {
			w.write(0, "Priority Class Name:\t%s\n", pod.Spec.PriorityClassName)
		}
		if pod.Spec.RuntimeClassName != nil && *pod.Spec.RuntimeClassName != "" {
			w.write(0, "Runtime Class Name:\t%s\n", *pod.Spec.RuntimeClassName)
		}
		if pod.Spec.ServiceAccountName != "" {
			w.write(0, "Service Account:\t%s\n", pod.Spec.ServiceAccountName)
		}
		if pod.Spec.NodeName == "" {
			w.write(0, "Node:\t<none>\n")
		} else {
			w.write(0, "Node:\t%s\n", pod.Spec.NodeName+"/"+pod.Status.HostIP)
		}
		if pod.Status.StartTime != nil {
			w.write(0, "Start Time:\t%s\n", pod.Status.StartTime.Time.Format(time.RFC1123Z))
		}
		printLabels(w, "Labels", pod.Labels)
		printAnnotations(w, "Annotations", pod.Annotations)
		if pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodFailed && pod.Status.Phase != corev1.PodSucceeded {
			w.write(0, "Status:\tTerminating (lasts %s)\n", since(pod.DeletionTimestamp.Time))
			if pod.DeletionGracePeriodSeconds != nil {
				w.write(0, "Termination Grace Period:\t%ds\n", *pod.DeletionGracePeriodSeconds)
			}
		} else {
			w.write(0, "Status:\t%s\n", pod.Status.Phase)
		}
		if pod.Status.Reason != "" {
			w.write(0, "Reason:\t%s\n", pod.Status.Reason)
		}
		if pod.Status.Message != "" {
			w.write(0, "Message:\t%s\n", pod.Status.Message)
		}
		w.write(0, "IP:\t%s\n", pod.Status.PodIP)
		if len(pod.Status.PodIPs) == 0 {
			w.write(0, "IPs:\t<none>\n")
		} else {
			w.write(0, "IPs:\n")
			for _, ip := range pod.Status.PodIPs {
				w.write(1, "IP:\t%s\n", ip.IP)
			}
		}
		if ref := metav1.GetControllerOf(pod); ref != nil {
			w.write(0, "Controlled By:\t%s/%s\n", ref.Kind, ref.Name)
		}
		if pod.Status.NominatedNodeName != "" {
			w.write(0, "NominatedNodeName:\t%s\n", pod.Status.NominatedNodeName)
		}
		if len(pod.Spec.InitContainers) > 0 {
			describeContainers(w, "Init Containers", pod.Spec.InitContainers, pod.Status.InitContainerStatuses, "")
		}
		describeContainers(w, "Containers", pod.Spec.Containers, pod.Status.ContainerStatuses, "")
		if len(pod.Status.Conditions) > 0 {
			w.write(0, "Conditions:\n  Type\tStatus\n")
			for _, c := range pod.Status.Conditions {
				w.write(1, "%v \t%v \n", c.Type, c.Status)
			}
		}
		describeVolumes(w, pod.Spec.Volumes, "")
		w.write(0, "QoS Class:\t%s\n", podQOS(pod))
		printLabels(w, "Node-Selectors", pod.Spec.NodeSelector)
		printTolerations(w, "Tolerations", pod.Spec.Tolerations)
		describeEvents(w, events)
	})
}

// podQOS prefers the class the server computed; the fallback follows the
// rule for pods without it (no requests or limits at all: BestEffort).
func podQOS(pod *corev1.Pod) corev1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	for _, c := range pod.Spec.Containers {
		if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
			return corev1.PodQOSBurstable
		}
	}
	return corev1.PodQOSBestEffort
}

func describeNamespaceByName(ctx context.Context, cs kubernetes.Interface, _, name string, _ bool) (string, error) {
	ns, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	quotas, err := cs.CoreV1().ResourceQuotas(name).List(ctx, metav1.ListOptions{Limit: 500})
	hasQuotas := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return "", err
	}
	limits, err := cs.CoreV1().LimitRanges(name).List(ctx, metav1.ListOptions{Limit: 500})
	hasLimits := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return "", err
	}
	return tabbed(func(w *describeWriter) {
		w.write(0, "Name:\t%s\n", ns.Name)
		printLabels(w, "Labels", ns.Labels)
		printAnnotations(w, "Annotations", ns.Annotations)
		w.write(0, "Status:\t%s\n", ns.Status.Phase)
		if len(ns.Status.Conditions) > 0 {
			w.write(0, "Conditions:\n")
			w.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n")
			w.write(1, "----\t------\t------------------\t------\t-------\n")
			for _, c := range ns.Status.Conditions {
				w.write(1, "%v\t%v\t%s\t%v\t%v\n", c.Type, c.Status, c.LastTransitionTime.Time.Format(time.RFC1123Z), c.Reason, c.Message)
			}
		}
		if hasQuotas && len(quotas.Items) == 0 {
			w.write(0, "\nNo resource quota.\n")
		}
		if hasLimits && len(limits.Items) == 0 {
			w.write(0, "\nNo LimitRange resource.\n")
		}
	}), nil
}
