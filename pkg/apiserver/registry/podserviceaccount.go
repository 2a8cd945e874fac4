package registry

// A new pod's service account, as kube-apiserver's ServiceAccount
// admission plugin names it: "default" when the pod names none. Like
// every admission plugin it runs after the field manager has recorded the
// creator's fields, so the name it adds is nobody's managed field. Only
// the name: no token volume is mounted and the account need not exist.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultServiceAccountName is the account of a pod that names none.
const defaultServiceAccountName = "default"

// podServiceAccount are the WriteHooks of pods that name their account.
type podServiceAccount struct{ noHooks }

// BeginCreate names the default account on a pod that names none.
func (podServiceAccount) BeginCreate(_ context.Context, obj runtime.Object, _ bool) (FinishFunc, error) {
	spec := &obj.(*corev1.Pod).Spec
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = defaultServiceAccountName
	}
	// v1 shows the name in the deprecated field too.
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	return noFinish, nil
}

// convertServiceAccount does what kube's v1 conversion does on decode,
// before the field manager: the deprecated serviceAccount stands in for
// an empty serviceAccountName, and v1 shows the name in both.
func convertServiceAccount(spec *corev1.PodSpec) {
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
}
