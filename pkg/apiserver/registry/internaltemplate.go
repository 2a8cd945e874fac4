package registry

// kube-apiserver validates its internal types, so a "field is immutable"
// error about a whole pod template prints the internal PodTemplateSpec as
// JSON: its metadata inline, and every spec field under its Go name (the
// internal types have no JSON names), nulls included. These mirrors
// reproduce that value from the v1 template. Fields that hold nested
// structures of their own (volumes, ports, env, probes…) are printed in
// their v1 form: exact for the common template, readable for the rest.

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// internalTemplate mirrors core.PodTemplateSpec.
type internalTemplate struct {
	metav1.ObjectMeta
	Spec internalPodSpec
}

// internalPodSpec mirrors core.PodSpec, field for field, in its order.
type internalPodSpec struct {
	Volumes                       any
	InitContainers                []internalContainer
	Containers                    []internalContainer
	EphemeralContainers           any
	RestartPolicy                 corev1.RestartPolicy
	TerminationGracePeriodSeconds *int64
	ActiveDeadlineSeconds         *int64
	DNSPolicy                     corev1.DNSPolicy
	NodeSelector                  map[string]string
	ServiceAccountName            string
	DeprecatedServiceAccount      string
	AutomountServiceAccountToken  *bool
	NodeName                      string
	HostNetwork                   bool
	HostPID                       bool
	HostIPC                       bool
	ShareProcessNamespace         *bool
	SecurityContext               *internalPodSecurityContext
	ImagePullSecrets              any
	Hostname                      string
	Subdomain                     string
	Affinity                      any
	SchedulerName                 string
	Tolerations                   any
	HostAliases                   any
	PriorityClassName             string
	Priority                      *int32
	DNSConfig                     any
	ReadinessGates                any
	RuntimeClassName              *string
	EnableServiceLinks            *bool
	PreemptionPolicy              *corev1.PreemptionPolicy
	Overhead                      any
	TopologySpreadConstraints     any
	SetHostnameAsFQDN             *bool
	OS                            any
	HostUsers                     *bool
	SchedulingGates               any
	ResourceClaims                any
	Resources                     any
	HostnameOverride              *string
	SchedulingGroup               any
	EvictionResponders            any
}

// internalContainer mirrors core.Container.
type internalContainer struct {
	Name                     string
	Image                    string
	Command                  []string
	Args                     []string
	WorkingDir               string
	Ports                    any
	EnvFrom                  any
	Env                      any
	Resources                internalResources
	ResizePolicy             any
	RestartPolicy            *corev1.ContainerRestartPolicy
	RestartPolicyRules       any
	VolumeMounts             any
	VolumeDevices            any
	LivenessProbe            any
	ReadinessProbe           any
	StartupProbe             any
	Lifecycle                any
	TerminationMessagePath   string
	TerminationMessagePolicy corev1.TerminationMessagePolicy
	ImagePullPolicy          corev1.PullPolicy
	SecurityContext          any
	Stdin                    bool
	StdinOnce                bool
	TTY                      bool
}

type internalResources struct {
	Limits   corev1.ResourceList
	Requests corev1.ResourceList
	Claims   any
}

// internalPodSecurityContext mirrors core.PodSecurityContext.
type internalPodSecurityContext struct {
	SELinuxOptions           any
	WindowsOptions           any
	RunAsUser                *int64
	RunAsGroup               *int64
	RunAsNonRoot             *bool
	SupplementalGroups       []int64
	SupplementalGroupsPolicy *corev1.SupplementalGroupsPolicy
	FSGroup                  *int64
	Sysctls                  any
	FSGroupChangePolicy      *corev1.PodFSGroupChangePolicy
	SeccompProfile           any
	AppArmorProfile          any
	SELinuxChangePolicy      *corev1.PodSELinuxChangePolicy
}

// orNil keeps a nil slice or pointer printing as null: an interface
// holding a typed nil would too, but an empty slice would print [].
func orNil[T any](v []T) any {
	if v == nil {
		return nil
	}
	return v
}

// internalPodTemplate is t as kube-apiserver prints it in errors.
func internalPodTemplate(t *corev1.PodTemplateSpec) internalTemplate {
	s := &t.Spec
	out := internalTemplate{
		ObjectMeta: metav1.ObjectMeta{Labels: t.Labels, Annotations: t.Annotations, Name: t.Name, Namespace: t.Namespace},
		Spec: internalPodSpec{
			Volumes: orNil(s.Volumes), InitContainers: internalContainers(s.InitContainers), Containers: internalContainers(s.Containers),
			EphemeralContainers: orNil(s.EphemeralContainers), RestartPolicy: s.RestartPolicy,
			TerminationGracePeriodSeconds: s.TerminationGracePeriodSeconds, ActiveDeadlineSeconds: s.ActiveDeadlineSeconds,
			DNSPolicy: s.DNSPolicy, NodeSelector: s.NodeSelector, ServiceAccountName: s.ServiceAccountName,
			DeprecatedServiceAccount: s.DeprecatedServiceAccount, AutomountServiceAccountToken: s.AutomountServiceAccountToken,
			NodeName: s.NodeName, HostNetwork: s.HostNetwork, HostPID: s.HostPID, HostIPC: s.HostIPC,
			ShareProcessNamespace: s.ShareProcessNamespace, ImagePullSecrets: orNil(s.ImagePullSecrets),
			Hostname: s.Hostname, Subdomain: s.Subdomain, SchedulerName: s.SchedulerName, Tolerations: orNil(s.Tolerations),
			HostAliases: orNil(s.HostAliases), PriorityClassName: s.PriorityClassName, Priority: s.Priority,
			ReadinessGates: orNil(s.ReadinessGates), RuntimeClassName: s.RuntimeClassName, EnableServiceLinks: s.EnableServiceLinks,
			PreemptionPolicy: s.PreemptionPolicy, TopologySpreadConstraints: orNil(s.TopologySpreadConstraints),
			SetHostnameAsFQDN: s.SetHostnameAsFQDN, HostUsers: s.HostUsers, SchedulingGates: orNil(s.SchedulingGates),
			ResourceClaims: orNil(s.ResourceClaims), HostnameOverride: s.HostnameOverride,
		},
	}
	if s.Affinity != nil {
		out.Spec.Affinity = s.Affinity
	}
	if s.DNSConfig != nil {
		out.Spec.DNSConfig = s.DNSConfig
	}
	if len(s.Overhead) > 0 {
		out.Spec.Overhead = s.Overhead
	}
	if s.OS != nil {
		out.Spec.OS = s.OS
	}
	if s.Resources != nil {
		out.Spec.Resources = s.Resources
	}
	if sc := s.SecurityContext; sc != nil {
		out.Spec.SecurityContext = &internalPodSecurityContext{
			RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup, RunAsNonRoot: sc.RunAsNonRoot,
			SupplementalGroups: sc.SupplementalGroups, SupplementalGroupsPolicy: sc.SupplementalGroupsPolicy, FSGroup: sc.FSGroup,
			Sysctls: orNil(sc.Sysctls), FSGroupChangePolicy: sc.FSGroupChangePolicy, SELinuxChangePolicy: sc.SELinuxChangePolicy,
		}
		if sc.SELinuxOptions != nil {
			out.Spec.SecurityContext.SELinuxOptions = sc.SELinuxOptions
		}
		if sc.WindowsOptions != nil {
			out.Spec.SecurityContext.WindowsOptions = sc.WindowsOptions
		}
		if sc.SeccompProfile != nil {
			out.Spec.SecurityContext.SeccompProfile = sc.SeccompProfile
		}
		if sc.AppArmorProfile != nil {
			out.Spec.SecurityContext.AppArmorProfile = sc.AppArmorProfile
		}
	}
	return out
}

func internalContainers(cs []corev1.Container) []internalContainer {
	if cs == nil {
		return nil
	}
	out := make([]internalContainer, len(cs))
	for i := range cs {
		c := &cs[i]
		ic := internalContainer{
			Name: c.Name, Image: c.Image, Command: c.Command, Args: c.Args, WorkingDir: c.WorkingDir,
			Ports: orNil(c.Ports), EnvFrom: orNil(c.EnvFrom), Env: orNil(c.Env),
			Resources:    internalResources{Limits: c.Resources.Limits, Requests: c.Resources.Requests, Claims: orNil(c.Resources.Claims)},
			ResizePolicy: orNil(c.ResizePolicy), RestartPolicy: c.RestartPolicy, RestartPolicyRules: orNil(c.RestartPolicyRules),
			VolumeMounts: orNil(c.VolumeMounts), VolumeDevices: orNil(c.VolumeDevices),
			TerminationMessagePath: c.TerminationMessagePath, TerminationMessagePolicy: c.TerminationMessagePolicy,
			ImagePullPolicy: c.ImagePullPolicy, Stdin: c.Stdin, StdinOnce: c.StdinOnce, TTY: c.TTY,
		}
		for _, p := range []struct {
			dst *any
			src *corev1.Probe
		}{{&ic.LivenessProbe, c.LivenessProbe}, {&ic.ReadinessProbe, c.ReadinessProbe}, {&ic.StartupProbe, c.StartupProbe}} {
			if p.src != nil {
				*p.dst = p.src
			}
		}
		if c.Lifecycle != nil {
			ic.Lifecycle = c.Lifecycle
		}
		if c.SecurityContext != nil {
			ic.SecurityContext = c.SecurityContext
		}
		out[i] = ic
	}
	return out
}
