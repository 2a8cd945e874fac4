package apiserver

import "github.com/miniapi/miniapi/pkg/apiserver/registry"

// keyBase is the start of a resource's keys (registry.Resource.KeyPrefix).
func keyBase(r *registry.Resource) string { return r.KeyPrefix() }

// objectKey is where one object lives in the store.
func objectKey(r *registry.Resource, namespace, name string) string {
	if r.Namespaced {
		return keyBase(r) + namespace + "/" + name
	}
	return keyBase(r) + name
}

// collectionPrefix is the key prefix of every object of the resource in
// namespace, or in all namespaces when namespace is "".
func collectionPrefix(r *registry.Resource, namespace string) string {
	p := keyBase(r)
	if r.Namespaced && namespace != "" {
		p += namespace + "/"
	}
	return p
}
