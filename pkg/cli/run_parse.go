package cli

// Parsing `run`'s --labels, --env, --annotations, --restart and
// --image-pull-policy as kubectl does, with its messages.

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// parseRunLabels reads "k=v,k2=v2"; nil when empty, so that run falls
// back to run=NAME.
func parseRunLabels(spec string) (map[string]string, error) {
	if spec == "" {
		return nil, nil
	}
	labels := map[string]string{}
	for _, pair := range strings.Split(spec, ",") {
		kv := strings.Split(pair, "=")
		if len(kv) != 2 {
			return nil, fmt.Errorf("unexpected label spec: %s", pair)
		}
		if kv[0] == "" {
			return nil, fmt.Errorf("unexpected empty label key")
		}
		labels[kv[0]] = kv[1]
	}
	return labels, nil
}

// parseRunEnvs reads NAME=VALUE entries; NAME must be a C identifier-like
// environment variable name.
func parseRunEnvs(entries []string) ([]corev1.EnvVar, error) {
	envs := make([]corev1.EnvVar, 0, len(entries))
	for _, e := range entries {
		name, value, found := strings.Cut(e, "=")
		if !found || name == "" || len(validation.IsEnvVarName(name)) != 0 {
			return nil, fmt.Errorf("invalid env: %v", e)
		}
		envs = append(envs, corev1.EnvVar{Name: name, Value: value})
	}
	return envs, nil
}

// parseRunAnnotations reads KEY=VALUE entries; every malformed one is
// named in a single error.
func parseRunAnnotations(entries []string) (map[string]string, error) {
	out := map[string]string{}
	var invalid []string
	for _, e := range entries {
		k, v, found := strings.Cut(e, "=")
		if !found || k == "" {
			invalid = append(invalid, e)
			continue
		}
		out[k] = v
	}
	if len(invalid) > 0 {
		return nil, fmt.Errorf("invalid annotations format: %s", strings.Join(invalid, ", "))
	}
	return out, nil
}

// runRestartPolicy checks --restart; an empty value means Always, or
// OnFailure for an interactive pod.
func runRestartPolicy(restart string, interactive bool) (corev1.RestartPolicy, error) {
	switch p := corev1.RestartPolicy(restart); p {
	case "":
		if interactive {
			return corev1.RestartPolicyOnFailure, nil
		}
		return corev1.RestartPolicyAlways, nil
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return p, nil
	}
	return "", fmt.Errorf("invalid restart policy: %s, valid values are: %s, %s, %s", restart,
		corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever)
}

// runPullPolicy checks --image-pull-policy; empty leaves it to the server.
func runPullPolicy(policy string) (corev1.PullPolicy, error) {
	switch p := corev1.PullPolicy(policy); p {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		return p, nil
	}
	return "", fmt.Errorf("invalid image pull policy: %s, valid values are: %s, %s, %s", policy,
		corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever)
}
