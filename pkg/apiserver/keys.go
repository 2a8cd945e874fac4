package apiserver

import "github.com/miniapi/miniapi/pkg/apiserver/registry"

// groupSegment is the first key segment of a resource's keys: its API group,
// or "core" for the legacy group.
func groupSegment(r *registry.Resource) string {
	if r.Group == "" {
		return "core"
	}
	return r.Group
}

// objectKey is where one object lives in the store.
func objectKey(r *registry.Resource, namespace, name string) string {
	if r.Namespaced {
		return "/" + groupSegment(r) + "/" + r.Resource + "/" + namespace + "/" + name
	}
	return "/" + groupSegment(r) + "/" + r.Resource + "/" + name
}

// collectionPrefix is the key prefix of every object of the resource in
// namespace, or in all namespaces when namespace is "".
func collectionPrefix(r *registry.Resource, namespace string) string {
	p := "/" + groupSegment(r) + "/" + r.Resource + "/"
	if r.Namespaced && namespace != "" {
		p += namespace + "/"
	}
	return p
}
