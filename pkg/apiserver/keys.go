package apiserver

import "github.com/miniapi/miniapi/pkg/apiserver/registry"

// keyBase is the start of a resource's keys: /<group>/<resource>/, with
// "core" for the legacy group. A converted resource (StoredAs) uses the
// keys of the resource that holds its objects.
func keyBase(r *registry.Resource) string {
	gr := r.StorageGroupResource()
	group := gr.Group
	if group == "" {
		group = "core"
	}
	return "/" + group + "/" + gr.Resource + "/"
}

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
