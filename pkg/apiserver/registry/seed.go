package registry

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
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
// system namespaces, kube's two system priority classes, kube's bootstrap
// ClusterRoles and ClusterRoleBindings (BootstrapClusterRoles), and the
// default/kubernetes Service that points at the API server (the first
// address of the ClusterIP range, as kube-apiserver keeps it).
func Seeds(opts Options) ([]Seed, error) {
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
	for _, pc := range SystemPriorityClasses() {
		seeds = append(seeds, Seed{Resource: schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}, Object: pc})
	}
	for _, role := range BootstrapClusterRoles() {
		seeds = append(seeds, Seed{Resource: schema.GroupVersionResource{Group: rbacGroup, Version: "v1", Resource: "clusterroles"}, Object: role})
	}
	for _, binding := range BootstrapClusterRoleBindings() {
		seeds = append(seeds, Seed{Resource: schema.GroupVersionResource{Group: rbacGroup, Version: "v1", Resource: "clusterrolebindings"}, Object: binding})
	}
	svc, err := kubernetesService(opts.withDefaults().ServiceClusterIPRange)
	if err != nil {
		return nil, err
	}
	return append(seeds, Seed{Resource: schema.GroupVersionResource{Version: "v1", Resource: "services"}, Object: svc}), nil
}

// APIServerServicePort is the targetPort of the default/kubernetes
// Service: kube-apiserver's usual secure port.
const APIServerServicePort = 6443

// kubernetesService is the default/kubernetes Service kube-apiserver
// keeps: port 443 "https" to the API server, at the first address of
// the ClusterIP range.
func kubernetesService(cidr string) (*corev1.Service, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("--service-cluster-ip-range %q: %v", cidr, err)
	}
	first := p.Masked().Addr().Next().String()
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name: "kubernetes", Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"},
		},
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: first, ClusterIPs: []string{first},
			Ports: []corev1.ServicePort{{
				Name: "https", Port: 443, Protocol: corev1.ProtocolTCP,
				TargetPort: intstr.FromInt32(APIServerServicePort),
			}},
		},
	}, nil
}
