package garbagecollector

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// ownerUIDIndex indexes cached objects by the uid of each of their owners,
// so an owner finds its dependents without a scan.
const ownerUIDIndex = "miniapi.io/gc.ownerUID"

func indexByOwnerUID(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil
	}
	var uids []string
	for _, r := range m.GetOwnerReferences() {
		uids = append(uids, string(r.UID))
	}
	return uids, nil
}

// kind is one resource the collector watches, with the few API calls it
// makes on it. Every kind here is namespaced.
type kind struct {
	resource   string // "replicasets", the first part of a queue key
	apiVersion string // "apps/v1", as ownerReferences name it
	kind       string // "ReplicaSet"
	// gk is what an ownerReference must name to point at this kind: its
	// group and kind, in any version (an object is the same whichever
	// version it is read in).
	gk       schema.GroupKind
	informer cache.SharedIndexInformer
	// get reads the object from the API, not the cache: the collector
	// deletes only what the server says is orphaned.
	get    func(ctx context.Context, ns, name string) (metav1.Object, error)
	delete func(ctx context.Context, ns, name string, opts metav1.DeleteOptions) error
	patch  func(ctx context.Context, ns, name string, data []byte) error
	// update writes obj (a deep copy of a cached object) back.
	update func(ctx context.Context, obj runtime.Object) error
}

func kinds(client kubernetes.Interface, inf informers.SharedInformerFactory) []*kind {
	core, apps := client.CoreV1(), client.AppsV1()
	mp := types.MergePatchType
	typed := []*kind{
		{
			resource: "pods", apiVersion: "v1", kind: "Pod", informer: inf.Core().V1().Pods().Informer(),
			get: func(ctx context.Context, ns, name string) (metav1.Object, error) {
				return core.Pods(ns).Get(ctx, name, metav1.GetOptions{})
			},
			delete: func(ctx context.Context, ns, name string, o metav1.DeleteOptions) error {
				return core.Pods(ns).Delete(ctx, name, o)
			},
			patch: func(ctx context.Context, ns, name string, data []byte) error {
				_, err := core.Pods(ns).Patch(ctx, name, mp, data, metav1.PatchOptions{})
				return err
			},
			update: func(ctx context.Context, obj runtime.Object) error {
				p := obj.(*corev1.Pod)
				_, err := core.Pods(p.Namespace).Update(ctx, p, metav1.UpdateOptions{})
				return err
			},
		},
		{
			resource: "replicasets", apiVersion: "apps/v1", kind: "ReplicaSet", informer: inf.Apps().V1().ReplicaSets().Informer(),
			get: func(ctx context.Context, ns, name string) (metav1.Object, error) {
				return apps.ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
			},
			delete: func(ctx context.Context, ns, name string, o metav1.DeleteOptions) error {
				return apps.ReplicaSets(ns).Delete(ctx, name, o)
			},
			patch: func(ctx context.Context, ns, name string, data []byte) error {
				_, err := apps.ReplicaSets(ns).Patch(ctx, name, mp, data, metav1.PatchOptions{})
				return err
			},
			update: func(ctx context.Context, obj runtime.Object) error {
				rs := obj.(*appsv1.ReplicaSet)
				_, err := apps.ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
				return err
			},
		},
		{
			resource: "deployments", apiVersion: "apps/v1", kind: "Deployment", informer: inf.Apps().V1().Deployments().Informer(),
			get: func(ctx context.Context, ns, name string) (metav1.Object, error) {
				return apps.Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			},
			delete: func(ctx context.Context, ns, name string, o metav1.DeleteOptions) error {
				return apps.Deployments(ns).Delete(ctx, name, o)
			},
			patch: func(ctx context.Context, ns, name string, data []byte) error {
				_, err := apps.Deployments(ns).Patch(ctx, name, mp, data, metav1.PatchOptions{})
				return err
			},
			update: func(ctx context.Context, obj runtime.Object) error {
				d := obj.(*appsv1.Deployment)
				_, err := apps.Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
				return err
			},
		},
	}
	for _, k := range typed {
		k.gk = schema.FromAPIVersionAndKind(k.apiVersion, k.kind).GroupKind()
	}
	return typed
}

// object is a cached object with its kind.
type object struct {
	kind *kind
	obj  runtime.Object
	meta metav1.Object
}

func (o object) key() string {
	return o.kind.resource + "/" + o.meta.GetNamespace() + "/" + o.meta.GetName()
}

func (o object) String() string {
	return fmt.Sprintf("%s %s/%s", o.kind.kind, o.meta.GetNamespace(), o.meta.GetName())
}
