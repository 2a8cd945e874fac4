package registry

// Defaults for pod specs, as k8s.io/api's v1 defaulting functions in
// kube-apiserver apply them on every decode (create and update) — both to
// Pods and to the pod templates inside ReplicaSets and Deployments.

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	defaultTerminationGracePeriod = int64(corev1.DefaultTerminationGracePeriodSeconds)
	defaultSchedulerName          = corev1.DefaultSchedulerName
	defaultTerminationMessagePath = corev1.TerminationMessagePathDefault
)

// defaultPodSpec fills the fields kube's SetDefaults_PodSpec and the
// container, port, probe and volume defaulters fill.
func defaultPodSpec(spec *corev1.PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		v := defaultTerminationGracePeriod
		spec.TerminationGracePeriodSeconds = &v
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = defaultSchedulerName
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i], spec.HostNetwork)
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i], spec.HostNetwork)
	}
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
}

// defaultPodTemplate defaults a ReplicaSet's or Deployment's template.
func defaultPodTemplate(t *corev1.PodTemplateSpec) {
	defaultPodSpec(&t.Spec)
}

// defaultPod applies the pod-only defaults on top of the spec's
// (SetDefaults_Pod): service links on, and requests copied from limits.
func defaultPod(pod *corev1.Pod) {
	defaultPodSpec(&pod.Spec)
	if pod.Spec.EnableServiceLinks == nil {
		v := corev1.DefaultEnableServiceLinks
		pod.Spec.EnableServiceLinks = &v
	}
	for i := range pod.Spec.InitContainers {
		defaultRequestsFromLimits(&pod.Spec.InitContainers[i].Resources)
	}
	for i := range pod.Spec.Containers {
		defaultRequestsFromLimits(&pod.Spec.Containers[i].Resources)
	}
	if pod.Spec.Resources != nil {
		defaultRequestsFromLimits(pod.Spec.Resources)
	}
}

// defaultRequestsFromLimits: a limit without a request means the request
// equals the limit.
func defaultRequestsFromLimits(r *corev1.ResourceRequirements) {
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		r.Requests[name] = limit.DeepCopy()
	}
}

func defaultContainer(c *corev1.Container, hostNetwork bool) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = defaultTerminationMessagePath
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		p := &c.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if hostNetwork && p.HostPort == 0 {
			p.HostPort = p.ContainerPort
		}
	}
	for i := range c.Env {
		if ref := envFieldRef(c.Env[i]); ref != nil && ref.APIVersion == "" {
			ref.APIVersion = "v1"
		}
	}
	defaultProbe(c.LivenessProbe)
	defaultProbe(c.ReadinessProbe)
	defaultProbe(c.StartupProbe)
}

func envFieldRef(e corev1.EnvVar) *corev1.ObjectFieldSelector {
	if e.ValueFrom == nil {
		return nil
	}
	return e.ValueFrom.FieldRef
}

// defaultPullPolicy is Always for an image without a tag or tagged
// :latest, IfNotPresent otherwise (a digest counts as pinned).
func defaultPullPolicy(image string) corev1.PullPolicy {
	if strings.Contains(image, "@") {
		return corev1.PullIfNotPresent
	}
	tag := ""
	lastPart := image[strings.LastIndex(image, "/")+1:]
	if i := strings.LastIndex(lastPart, ":"); i >= 0 {
		tag = lastPart[i+1:]
	}
	if tag == "" || tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if h := p.HTTPGet; h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = corev1.URISchemeHTTP
		}
	}
	if g := p.GRPC; g != nil && g.Service == nil {
		empty := ""
		g.Service = &empty
	}
}

// defaultVolume: a volume with no source is an emptyDir, and secret,
// config map and projected volumes get file mode 0644.
func defaultVolume(v *corev1.Volume) {
	if v.VolumeSource == (corev1.VolumeSource{}) {
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	mode := corev1.SecretVolumeSourceDefaultMode
	if s := v.Secret; s != nil && s.DefaultMode == nil {
		s.DefaultMode = &mode
	}
	if c := v.ConfigMap; c != nil && c.DefaultMode == nil {
		c.DefaultMode = &mode
	}
	if p := v.Projected; p != nil && p.DefaultMode == nil {
		p.DefaultMode = &mode
	}
	if d := v.DownwardAPI; d != nil && d.DefaultMode == nil {
		d.DefaultMode = &mode
	}
	if h := v.HostPath; h != nil && h.Type == nil {
		t := corev1.HostPathUnset
		h.Type = &t
	}
}

// intOrPercent returns a pointer to an IntOrString percentage.
func intOrPercent(s string) *intstr.IntOrString {
	v := intstr.FromString(s)
	return &v
}
