package controllers

import (
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// newInformers is the one informer factory every controller shares,
// caching objects through dropManagedFields, and pods with their resource
// lists shared (sharedResources). Controllers that need something else
// (the garbage collector's metadata informers) trim with their own
// transform.
func newInformers(client kubernetes.Interface) informers.SharedInformerFactory {
	shared := &sharedResources{lists: map[string]corev1.ResourceList{}}
	return informers.NewSharedInformerFactoryWithOptions(client, resyncPeriod, informers.WithTransform(func(obj any) (any, error) {
		if pod, ok := obj.(*corev1.Pod); ok {
			shared.share(pod)
		}
		return dropManagedFields(obj)
	}))
}

// dropManagedFields is in the shared informers' transform: every object
// is cached without metadata.managedFields, which no controller reads and
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

// maxSharedResourceLists bounds sharedResources: past it, new lists are
// cached as they come.
const maxSharedResourceLists = 1024

// sharedResources lets cached pods share their containers' resource
// lists: the replicas of one workload have the same requests and limits,
// and each list decoded is a map of quantities (about 600 bytes; with a
// request and a limit, a third of a small pod's cached size). Objects in
// an informer's cache are read-only (every controller copies one before
// it changes it), so equal lists can be one map.
type sharedResources struct {
	mu    sync.Mutex
	lists map[string]corev1.ResourceList // by listKey
}

func (s *sharedResources) share(pod *corev1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			r := &cs[i].Resources
			r.Requests = s.one(r.Requests)
			r.Limits = s.one(r.Limits)
		}
	}
}

// one is the shared list equal to l, l itself when it is the first.
func (s *sharedResources) one(l corev1.ResourceList) corev1.ResourceList {
	if len(l) == 0 {
		return l
	}
	key := listKey(l)
	if shared, ok := s.lists[key]; ok {
		return shared
	}
	if len(s.lists) < maxSharedResourceLists {
		s.lists[key] = l
	}
	return l
}

// listKey names a resource list by its contents: "cpu=100m,memory=64Mi".
func listKey(l corev1.ResourceList) string {
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, string(name))
	}
	slices.Sort(names)
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		q := l[corev1.ResourceName(name)]
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(q.String())
	}
	return b.String()
}
