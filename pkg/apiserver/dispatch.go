package apiserver

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// serveResource routes a request under /api/v1 or /apis/G/V to its verb's
// handler, and names the verb and resource for the request log and metrics.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, group, version string, segs []string) {
	q, err := parseResourcePath(group, version, segs)
	if err != nil {
		writeError(w, err)
		return
	}
	verb := verbOf(r, q)
	resource := q.res.Resource
	if q.subresource != "" {
		resource += "/" + q.subresource
	}
	describeRequest(r, verb, resource)

	switch verb {
	case "get":
		if q.subresource == "scale" {
			s.getScale(w, r, q)
			return
		}
		s.get(w, r, q)
	case "list":
		s.list(w, r, q)
	case "watch":
		s.watch(w, r, q)
	case "create":
		s.create(w, r, q)
	case "update":
		if q.subresource == "scale" {
			s.updateScale(w, r, q)
			return
		}
		s.update(w, r, q)
	case "patch":
		s.patch(w, r, q)
	case "delete":
		s.delete(w, r, q)
	case "deletecollection":
		s.deleteCollection(w, r, q)
	default:
		writeError(w, apierrors.NewMethodNotSupported(q.gr(), r.Method))
	}
}

// verbOf is the Kubernetes verb of a request ("" when the method does
// not apply to the path).
func verbOf(r *http.Request, q request) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if q.name != "" {
			return "get"
		}
		if isWatch(r) {
			return "watch"
		}
		return "list"
	case http.MethodPost:
		if q.name == "" {
			return "create"
		}
	case http.MethodPut:
		if q.name != "" {
			return "update"
		}
	case http.MethodPatch:
		if q.name != "" {
			return "patch"
		}
	case http.MethodDelete:
		if q.name == "" {
			return "deletecollection"
		}
		if q.subresource == "" {
			return "delete"
		}
	}
	return ""
}
