package namespace

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// contents is one namespaced resource a namespace can hold.
type contents struct {
	// resource is "<plural>.<group>" as kube's namespace conditions name
	// it ("pods." for the core group).
	resource string
	// finalizers asks the API (not a cache) for the objects left, one
	// entry per object holding its finalizers.
	finalizers func(ctx context.Context, ns string) ([][]string, error)
	// deleteAll deletes them all with one deletecollection, in the
	// background (the garbage collector takes care of dependents).
	deleteAll func(ctx context.Context, ns string) error
}

var background = metav1.DeletePropagationBackground

func finalizersOf[T any](items []T, meta func(*T) metav1.Object) [][]string {
	out := make([][]string, len(items))
	for i := range items {
		out[i] = meta(&items[i]).GetFinalizers()
	}
	return out
}

// namespacedKinds lists what miniapi serves in a namespace, owners before
// dependents so that controllers do not recreate what was just deleted, and
// events last since deleting the others records some.
func namespacedKinds(client kubernetes.Interface) []contents {
	core, apps, leases := client.CoreV1(), client.AppsV1(), client.CoordinationV1()
	del := metav1.DeleteOptions{PropagationPolicy: &background}
	all := metav1.ListOptions{}
	return []contents{
		{"deployments.apps",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := apps.Deployments(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *appsv1.Deployment) metav1.Object { return o }), nil
			},
			func(ctx context.Context, ns string) error {
				return apps.Deployments(ns).DeleteCollection(ctx, del, all)
			}},
		{"replicasets.apps",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := apps.ReplicaSets(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *appsv1.ReplicaSet) metav1.Object { return o }), nil
			},
			func(ctx context.Context, ns string) error {
				return apps.ReplicaSets(ns).DeleteCollection(ctx, del, all)
			}},
		{"pods.",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := core.Pods(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *corev1.Pod) metav1.Object { return o }), nil
			},
			func(ctx context.Context, ns string) error { return core.Pods(ns).DeleteCollection(ctx, del, all) }},
		{"configmaps.",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := core.ConfigMaps(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *corev1.ConfigMap) metav1.Object { return o }), nil
			},
			func(ctx context.Context, ns string) error { return core.ConfigMaps(ns).DeleteCollection(ctx, del, all) }},
		{"services.",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := core.Services(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *corev1.Service) metav1.Object { return o }), nil
			},
			// client-go's typed Services client has no DeleteCollection.
			func(ctx context.Context, ns string) error {
				l, err := core.Services(ns).List(ctx, all)
				if err != nil {
					return err
				}
				for _, svc := range l.Items {
					if err := core.Services(ns).Delete(ctx, svc.Name, del); err != nil && !apierrors.IsNotFound(err) {
						return err
					}
				}
				return nil
			}},
		{"leases.coordination.k8s.io",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := leases.Leases(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *coordinationv1.Lease) metav1.Object { return o }), nil
			},
			func(ctx context.Context, ns string) error { return leases.Leases(ns).DeleteCollection(ctx, del, all) }},
		{"secrets.",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := core.Secrets(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *corev1.Secret) metav1.Object { return o }), nil
			},
			func(ctx context.Context, ns string) error { return core.Secrets(ns).DeleteCollection(ctx, del, all) }},
		// The serviceaccount controller makes no new "default" in a
		// terminating namespace, so this one stays deleted.
		{"serviceaccounts.",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := core.ServiceAccounts(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *corev1.ServiceAccount) metav1.Object { return o }), nil
			},
			func(ctx context.Context, ns string) error {
				return core.ServiceAccounts(ns).DeleteCollection(ctx, del, all)
			}},
		{"events.",
			func(ctx context.Context, ns string) ([][]string, error) {
				l, err := core.Events(ns).List(ctx, all)
				if err != nil {
					return nil, err
				}
				return finalizersOf(l.Items, func(o *corev1.Event) metav1.Object { return o }), nil
			},
			func(ctx context.Context, ns string) error { return core.Events(ns).DeleteCollection(ctx, del, all) }},
	}
}
