package registry

// kube-apiserver's DefaultTolerationSeconds admission plugin: a new pod
// that does not tolerate the NoExecute not-ready and unreachable taints
// gets tolerations of them for 300 seconds. It runs after the field
// manager, so these tolerations are nobody's managed fields.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultTolerationSeconds is how long a pod stays on a node that went
// not-ready or unreachable (the plugin's flags' default).
const defaultTolerationSeconds = int64(300)

var defaultNoExecuteTaints = []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable}

// podDefaultTolerations are the WriteHooks of pods that add the
// tolerations.
type podDefaultTolerations struct{ noHooks }

// BeginCreate adds the tolerations the pod lacks.
func (podDefaultTolerations) BeginCreate(_ context.Context, obj runtime.Object, _ bool) (FinishFunc, error) {
	spec := &obj.(*corev1.Pod).Spec
	for _, key := range defaultNoExecuteTaints {
		if toleratesNoExecute(spec.Tolerations, key) {
			continue
		}
		secs := defaultTolerationSeconds
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{
			Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs,
		})
	}
	return noFinish, nil
}

// toleratesNoExecute reports whether some toleration already covers the
// NoExecute taint with this key (as DefaultTolerationSeconds checks).
func toleratesNoExecute(ts []corev1.Toleration, key string) bool {
	for _, t := range ts {
		keyMatches := t.Key == key || t.Key == ""
		effectMatches := t.Effect == corev1.TaintEffectNoExecute || t.Effect == ""
		if keyMatches && effectMatches {
			return true
		}
	}
	return false
}
