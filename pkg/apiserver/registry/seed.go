package registry

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Seed is an object a server has from its first start, as a new cluster
// has, created through the same path as a client's create.
type Seed struct {
	Resource schema.GroupVersionResource
	Object   runtime.Object
}

// SystemNamespaces exist from the first start, as on a kubeadm cluster.
var SystemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// Seeds are the objects a new cluster has before anyone writes: the
// system namespaces.
func Seeds() []Seed {
	var seeds []Seed
	for _, name := range SystemNamespaces {
		seeds = append(seeds, Seed{
			Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"},
			Object: &corev1.Namespace{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
			},
		})
	}
	return seeds
}
