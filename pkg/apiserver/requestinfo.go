package apiserver

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// request is what a resource path names.
type request struct {
	res         *registry.Resource
	namespace   string // "" for cluster-scoped kinds and all-namespace lists
	name        string // "" for collections
	subresource string // "", "status", "scale", "finalize"...
	sub         *registry.Subresource
	// applied says the write is a server-side apply, whose managedFields
	// the apply itself computed.
	applied bool
}

// gr is the request's group and resource, as errors name them
// (deployments.apps).
func (q request) gr() schema.GroupResource { return q.res.GroupResource() }

// key is the store key of the named object.
func (q request) key() string { return objectKey(q.res, q.namespace, q.name) }

// parseResourcePath reads the segments after /api/v1 or /apis/G/V:
//
//	RESOURCE[/NAME[/SUB]]                     cluster-scoped, or all namespaces
//	namespaces/NS/RESOURCE[/NAME[/SUB]]       namespaced
//
// namespaces/NS/SUB (a namespace's status or finalize) is told apart from a
// namespaced collection by whether SUB is a namespaced resource.
func (s *Server) parseResourcePath(group, version string, segs []string) (request, error) {
	lookup := func(resource string) (*registry.Resource, bool) {
		return s.reg.Lookup(schema.GroupVersionResource{Group: group, Version: version, Resource: resource})
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		if res, ok := lookup(segs[2]); ok && res.Namespaced {
			return withNameAndSub(request{res: res, namespace: segs[1]}, segs[3:])
		}
	}
	if len(segs) == 0 {
		return request{}, errPathNotFound()
	}
	res, ok := lookup(segs[0])
	if !ok {
		if s.customGroup(group) {
			return request{}, errNoPage
		}
		return request{}, errPathNotFound()
	}
	return withNameAndSub(request{res: res}, segs[1:])
}

// customGroup reports whether no built-in kind is in group, so that only
// custom resources are (or were) served there.
func (s *Server) customGroup(group string) bool {
	if group == "" {
		return false
	}
	for _, r := range s.reg.All() {
		if r.Group == group && r.Schema == nil {
			return false
		}
	}
	return true
}

func withNameAndSub(q request, rest []string) (request, error) {
	switch len(rest) {
	case 0:
		return q, nil
	case 1:
		q.name = rest[0]
	case 2:
		q.name, q.subresource = rest[0], rest[1]
		if q.sub = q.res.Subresources[q.subresource]; q.sub == nil {
			return request{}, errPathNotFound()
		}
	default:
		return request{}, errPathNotFound()
	}
	if q.name == "" {
		return request{}, errPathNotFound()
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

// isWatch reports whether a GET is a watch. As in kube-apiserver, the
// parameter's presence asks for one whatever its value (true, True, 1,
// yes, empty), except "0" and "false".
func isWatch(r *http.Request) bool {
	values, ok := r.URL.Query()["watch"]
	if !ok {
		return false
	}
	v := ""
	if len(values) > 0 {
		v = values[0]
	}
	return v != "0" && v != "false"
}
