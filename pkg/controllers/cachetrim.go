package controllers

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// newInformers is the one informer factory every controller shares,
// caching objects through dropManagedFields. Controllers that need
// something else (the garbage collector's metadata informers) trim with
// their own transform.
func newInformers(client kubernetes.Interface) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, resyncPeriod, informers.WithTransform(dropManagedFields))
}

// dropManagedFields is the shared informers' transform: every object is
// cached without metadata.managedFields, which no controller reads and
// which is often the largest part of an object's metadata (a pod written
// by four managers carries four field sets). kube-controller-manager's
// informers drop it the same way. It is safe for the writes the
// controllers make from cached objects: an update that carries no
// managedFields keeps the stored ones, as in kube-apiserver.
//
// Anything else stays: a controller's Update sends back the cached object
// whole, so an annotation or label dropped here would be deleted on the
// server (the scheduler's binding, the Deployment controller's scaling of
// a ReplicaSet).
func dropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
