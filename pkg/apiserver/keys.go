package apiserver

import (
	"strings"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// groupSegment is the first key segment of a resource's keys: its API group,
// or "core" for the legacy group.
func groupSegment(r registry.Resource) string {
	if r.Group == "" {
		return "core"
	}
	return r.Group
}

// objectKey is where one object lives in the store.
func objectKey(r registry.Resource, namespace, name string) string {
	if r.Namespaced {
		return "/" + groupSegment(r) + "/" + r.Resource + "/" + namespace + "/" + name
	}
	return "/" + groupSegment(r) + "/" + r.Resource + "/" + name
}

// collectionPrefix is the key prefix of every object of the resource in
// namespace, or in all namespaces when namespace is "".
func collectionPrefix(r registry.Resource, namespace string) string {
	p := "/" + groupSegment(r) + "/" + r.Resource + "/"
	if r.Namespaced && namespace != "" {
		p += namespace + "/"
	}
	return p
}

// splitKey returns the namespace and name of a key under prefix p's resource.
func splitKey(r registry.Resource, key string) (namespace, name string) {
	rest := strings.TrimPrefix(key, collectionPrefix(r, ""))
	if r.Namespaced {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[:i], rest[i+1:]
		}
	}
	return "", rest
}
