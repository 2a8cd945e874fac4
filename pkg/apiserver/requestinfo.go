package apiserver

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// request is what a resource path names.
type request struct {
	res         registry.Resource
	namespace   string // "" for cluster-scoped kinds and all-namespace lists
	name        string // "" for collections
	subresource string // "", "status", "scale", "finalize"
}

// gr is the request's group and resource, as errors name them
// (deployments.apps).
func (q request) gr() schema.GroupResource {
	return schema.GroupResource{Group: q.res.Group, Resource: q.res.Resource}
}

// key is the store key of the named object.
func (q request) key() string { return objectKey(q.res, q.namespace, q.name) }

// parseResourcePath reads the segments after /api/v1 or /apis/G/V:
//
//	RESOURCE[/NAME[/SUB]]                     cluster-scoped, or all namespaces
//	namespaces/NS/RESOURCE[/NAME[/SUB]]       namespaced
//
// namespaces/NS/SUB (a namespace's status or finalize) is told apart from a
// namespaced collection by whether SUB is a namespaced resource.
func parseResourcePath(group, version string, segs []string) (request, error) {
	notFound := errPathNotFound()
	if len(segs) >= 3 && segs[0] == "namespaces" {
		if res, ok := registry.Lookup(group, version, segs[2]); ok && res.Namespaced {
			q := request{res: res, namespace: segs[1]}
			return withNameAndSub(q, segs[3:], notFound)
		}
	}
	if len(segs) == 0 {
		return request{}, notFound
	}
	res, ok := registry.Lookup(group, version, segs[0])
	if !ok {
		return request{}, notFound
	}
	return withNameAndSub(request{res: res}, segs[1:], notFound)
}

func withNameAndSub(q request, rest []string, notFound error) (request, error) {
	switch len(rest) {
	case 0:
		return q, nil
	case 1:
		q.name = rest[0]
	case 2:
		q.name, q.subresource = rest[0], rest[1]
		if !q.res.HasSubresource(q.subresource) && !(q.res.Resource == "namespaces" && q.subresource == "finalize") {
			return request{}, notFound
		}
	default:
		return request{}, notFound
	}
	if q.name == "" {
		return request{}, notFound
	}
	return q, nil
}

// splitPath splits a URL path into its non-empty segments.
func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// isWatch reports whether a GET is a watch.
func isWatch(r *http.Request) bool {
	v := r.URL.Query().Get("watch")
	return v == "true" || v == "1"
}
