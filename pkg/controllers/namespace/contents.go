package namespace

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// contents is one namespaced resource a namespace can hold.
type contents struct {
	resource string
	// count asks the API (not a cache) how many objects are left.
	count func(ctx context.Context, ns string) (int, error)
	// deleteAll deletes them all with one deletecollection, in the
	// background (the garbage collector takes care of dependents).
	deleteAll func(ctx context.Context, ns string) error
}

var background = metav1.DeletePropagationBackground

// namespacedKinds lists what miniapi serves in a namespace, owners before
// dependents so that controllers do not recreate what was just deleted, and
// events last since deleting the others records some.
func namespacedKinds(client kubernetes.Interface) []contents {
	core, apps := client.CoreV1(), client.AppsV1()
	del := metav1.DeleteOptions{PropagationPolicy: &background}
	all := metav1.ListOptions{}
	return []contents{
		{"deployments",
			func(ctx context.Context, ns string) (int, error) {
				l, err := apps.Deployments(ns).List(ctx, all)
				if err != nil {
					return 0, err
				}
				return len(l.Items), nil
			},
			func(ctx context.Context, ns string) error {
				return apps.Deployments(ns).DeleteCollection(ctx, del, all)
			}},
		{"replicasets",
			func(ctx context.Context, ns string) (int, error) {
				l, err := apps.ReplicaSets(ns).List(ctx, all)
				if err != nil {
					return 0, err
				}
				return len(l.Items), nil
			},
			func(ctx context.Context, ns string) error {
				return apps.ReplicaSets(ns).DeleteCollection(ctx, del, all)
			}},
		{"pods",
			func(ctx context.Context, ns string) (int, error) {
				l, err := core.Pods(ns).List(ctx, all)
				if err != nil {
					return 0, err
				}
				return len(l.Items), nil
			},
			func(ctx context.Context, ns string) error { return core.Pods(ns).DeleteCollection(ctx, del, all) }},
		{"events",
			func(ctx context.Context, ns string) (int, error) {
				l, err := core.Events(ns).List(ctx, all)
				if err != nil {
					return 0, err
				}
				return len(l.Items), nil
			},
			func(ctx context.Context, ns string) error { return core.Events(ns).DeleteCollection(ctx, del, all) }},
	}
}
