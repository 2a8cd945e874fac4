package registry

// Validation of pod specs (Pods and pod templates), with kube-apiserver's
// field paths and messages for what users commonly get wrong. It covers
// containers, ports, env, volumes and mounts, resources, pull policy,
// restart and DNS policy, node selector, service account, active
// deadline, hostname, subdomain and tolerations; kube's rarer rules
// (security contexts, affinity, probes, topology spread...) are not
// checked.

import (
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	restartPolicies = []corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}
	dnsPolicies     = []corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}
	pullPolicies    = []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}
	messagePolicies = []corev1.TerminationMessagePolicy{corev1.TerminationMessageFallbackToLogsOnError, corev1.TerminationMessageReadFile}
	portProtocols   = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
	taintEffects    = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
	tolerationOps   = []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}
)

// validatePodSpec checks a pod spec at fldPath ("spec" for a Pod,
// "spec.template.spec" for a template).
func validatePodSpec(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	volumes, errs := validateVolumes(spec.Volumes, fldPath.Child("volumes"))
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(fldPath.Child("containers"), ""))
	}
	names := sets.New[string]()
	errs = append(errs, validateContainers(spec.Containers, volumes, names, fldPath.Child("containers"))...)
	errs = append(errs, validateContainers(spec.InitContainers, volumes, names, fldPath.Child("initContainers"))...)
	errs = append(errs, oneOf(fldPath.Child("restartPolicy"), spec.RestartPolicy, restartPolicies)...)
	errs = append(errs, oneOf(fldPath.Child("dnsPolicy"), spec.DNSPolicy, dnsPolicies)...)
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	errs = append(errs, optionalName(fldPath.Child("serviceAccountName"), spec.ServiceAccountName, content.IsDNS1123Subdomain)...)
	errs = append(errs, optionalName(fldPath.Child("nodeName"), spec.NodeName, content.IsDNS1123Subdomain)...)
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(fldPath.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	errs = append(errs, optionalName(fldPath.Child("hostname"), spec.Hostname, content.IsDNS1123Label)...)
	errs = append(errs, optionalName(fldPath.Child("subdomain"), spec.Subdomain, content.IsDNS1123Label)...)
	errs = append(errs, validateTolerations(spec.Tolerations, fldPath.Child("tolerations"))...)
	return errs
}

// oneOf checks a required enum field.
func oneOf[T ~string](fldPath *field.Path, value T, allowed []T) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(fldPath, value, allowed)}
}

// optionalName checks a name-like field only when it is set.
func optionalName(fldPath *field.Path, value string, rule func(string) []string) field.ErrorList {
	if value == "" {
		return nil
	}
	var errs field.ErrorList
	for _, msg := range rule(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	return errs
}

func validateVolumes(volumes []corev1.Volume, fldPath *field.Path) (sets.Set[string], field.ErrorList) {
	names := sets.New[string]()
	var errs field.ErrorList
	for i, v := range volumes {
		namePath := fldPath.Index(i).Child("name")
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(namePath, ""))
		case names.Has(v.Name):
			errs = append(errs, field.Duplicate(namePath, v.Name))
		default:
			errs = append(errs, optionalName(namePath, v.Name, content.IsDNS1123Label)...)
		}
		names.Insert(v.Name)
	}
	return names, errs
}

// validateContainers checks each container; names is shared between
// regular and init containers, which may not reuse each other's names.
func validateContainers(containers []corev1.Container, volumes, names sets.Set[string], fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range containers {
		c := &containers[i]
		path := fldPath.Index(i)
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(path.Child("name"), ""))
		case names.Has(c.Name):
			errs = append(errs, field.Duplicate(path.Child("name"), c.Name))
		default:
			errs = append(errs, optionalName(path.Child("name"), c.Name, content.IsDNS1123Label)...)
		}
		names.Insert(c.Name)
		if c.Image == "" {
			errs = append(errs, field.Required(path.Child("image"), ""))
		} else if c.Image != strings.TrimSpace(c.Image) {
			errs = append(errs, field.Invalid(path.Child("image"), c.Image, "must not have leading or trailing whitespace"))
		}
		errs = append(errs, oneOf(path.Child("terminationMessagePolicy"), c.TerminationMessagePolicy, messagePolicies)...)
		errs = append(errs, validatePorts(c.Ports, path.Child("ports"))...)
		errs = append(errs, validateEnv(c.Env, path.Child("env"))...)
		errs = append(errs, validateVolumeMounts(c.VolumeMounts, volumes, path.Child("volumeMounts"))...)
		errs = append(errs, oneOf(path.Child("imagePullPolicy"), c.ImagePullPolicy, pullPolicies)...)
		errs = append(errs, validateResources(&c.Resources, path.Child("resources"))...)
	}
	return errs
}

func validatePorts(ports []corev1.ContainerPort, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, p := range ports {
		path := fldPath.Index(i)
		if p.Name != "" {
			if msgs := validation.IsValidPortName(p.Name); len(msgs) != 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(path.Child("name"), p.Name, msg))
				}
			} else if names.Has(p.Name) {
				errs = append(errs, field.Duplicate(path.Child("name"), p.Name))
			}
			names.Insert(p.Name)
		}
		if p.ContainerPort == 0 {
			errs = append(errs, field.Required(path.Child("containerPort"), ""))
		} else {
			errs = append(errs, portNumber(path.Child("containerPort"), p.ContainerPort)...)
		}
		if p.HostPort != 0 {
			errs = append(errs, portNumber(path.Child("hostPort"), p.HostPort)...)
		}
		errs = append(errs, oneOf(path.Child("protocol"), p.Protocol, portProtocols)...)
	}
	return errs
}

func portNumber(fldPath *field.Path, port int32) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(int(port)) {
		errs = append(errs, field.Invalid(fldPath, port, msg))
	}
	return errs
}

func validateEnv(env []corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		namePath := fldPath.Index(i).Child("name")
		if e.Name == "" {
			errs = append(errs, field.Required(namePath, ""))
			continue
		}
		for _, msg := range validation.IsRelaxedEnvVarName(e.Name) {
			errs = append(errs, field.Invalid(namePath, e.Name, msg))
		}
	}
	return errs
}

func validateVolumeMounts(mounts []corev1.VolumeMount, volumes sets.Set[string], fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, m := range mounts {
		path := fldPath.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(path.Child("name"), ""))
		} else if !volumes.Has(m.Name) {
			errs = append(errs, field.NotFound(path.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(path.Child("mountPath"), ""))
		}
	}
	return errs
}

// validateResources: quantities are not negative and a request is not
// above its limit.
func validateResources(r *corev1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, q := range r.Limits {
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(fldPath.Child("limits").Key(string(name)), q.String(), apimachineryvalidation.IsNegativeErrorMsg))
		}
	}
	for name, q := range r.Requests {
		path := fldPath.Child("requests").Key(string(name))
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(path, q.String(), apimachineryvalidation.IsNegativeErrorMsg))
			continue
		}
		if lim, ok := r.Limits[name]; ok && q.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(path, q.String(), "must be less than or equal to "+string(name)+" limit of "+lim.String()))
		}
	}
	return errs
}

func validateTolerations(ts []corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		path := fldPath.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, path.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(path.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(path.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := content.IsLabelValue(t.Value); len(msgs) != 0 {
				errs = append(errs, field.Invalid(path.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(path.Child("operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(path.Child("operator"), t.Operator, tolerationOps))
		}
		if t.Effect != "" {
			errs = append(errs, oneOf(path.Child("effect"), t.Effect, taintEffects)...)
		}
	}
	return errs
}
