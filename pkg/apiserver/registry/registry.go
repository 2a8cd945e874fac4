// Package registry is the table of resources miniapi serves: for each one
// its names, its Go type, and the Strategy that holds the kind's rules
// (defaults, validation, what bumps generation). The HTTP handlers are
// generic over this table; adding a kind means adding an entry and its
// strategy, not touching the handlers.
package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource describes one served resource.
type Resource struct {
	Group    string // "" for core
	Version  string // "v1"
	Resource string // plural, lower case: "deployments"
	Kind     string // "Deployment"
	ListKind string // "DeploymentList"
	Singular string // "deployment"

	ShortNames []string
	Categories []string // "all" for the kinds `kubectl get all` shows
	Namespaced bool
	// Subresources served besides the main resource: "status", "scale".
	Subresources []string

	// New and NewList return empty typed objects of the kind.
	New     func() runtime.Object
	NewList func() runtime.Object

	Strategy Strategy
}

// GroupVersionResource names the resource.
func (r Resource) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// GroupVersionKind names the kind.
func (r Resource) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// HasSubresource reports whether sub ("status", "scale") is served.
func (r Resource) HasSubresource(sub string) bool {
	for _, s := range r.Subresources {
		if s == sub {
			return true
		}
	}
	return false
}

// All returns every served resource, core group first.
func All() []Resource {
	return []Resource{
		{
			Version: "v1", Resource: "namespaces", Kind: "Namespace", ListKind: "NamespaceList", Singular: "namespace",
			ShortNames: []string{"ns"}, Subresources: []string{"status"},
			New: func() runtime.Object { return &corev1.Namespace{} }, NewList: func() runtime.Object { return &corev1.NamespaceList{} },
			Strategy: namespaceStrategy{},
		},
		{
			Version: "v1", Resource: "nodes", Kind: "Node", ListKind: "NodeList", Singular: "node",
			ShortNames: []string{"no"}, Subresources: []string{"status"},
			New: func() runtime.Object { return &corev1.Node{} }, NewList: func() runtime.Object { return &corev1.NodeList{} },
			Strategy: nodeStrategy{},
		},
		{
			Version: "v1", Resource: "pods", Kind: "Pod", ListKind: "PodList", Singular: "pod",
			ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true, Subresources: []string{"status"},
			New: func() runtime.Object { return &corev1.Pod{} }, NewList: func() runtime.Object { return &corev1.PodList{} },
			Strategy: podStrategy{},
		},
		{
			Version: "v1", Resource: "events", Kind: "Event", ListKind: "EventList", Singular: "event",
			ShortNames: []string{"ev"}, Namespaced: true,
			New: func() runtime.Object { return &corev1.Event{} }, NewList: func() runtime.Object { return &corev1.EventList{} },
			Strategy: eventStrategy{},
		},
		{
			Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", ListKind: "ReplicaSetList", Singular: "replicaset",
			ShortNames: []string{"rs"}, Categories: []string{"all"}, Namespaced: true, Subresources: []string{"status", "scale"},
			New: func() runtime.Object { return &appsv1.ReplicaSet{} }, NewList: func() runtime.Object { return &appsv1.ReplicaSetList{} },
			Strategy: replicaSetStrategy{},
		},
		{
			Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", ListKind: "DeploymentList", Singular: "deployment",
			ShortNames: []string{"deploy"}, Categories: []string{"all"}, Namespaced: true, Subresources: []string{"status", "scale"},
			New: func() runtime.Object { return &appsv1.Deployment{} }, NewList: func() runtime.Object { return &appsv1.DeploymentList{} },
			Strategy: deploymentStrategy{},
		},
	}
}

// Lookup finds a resource by group, version and plural name.
func Lookup(group, version, resource string) (Resource, bool) {
	for _, r := range All() {
		if r.Group == group && r.Version == version && r.Resource == resource {
			return r, true
		}
	}
	return Resource{}, false
}
