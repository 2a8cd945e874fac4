package apiserver

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// serveResource routes a request under /api/v1 or /apis/G/V to its verb's
// handler, and names the verb and resource for the request log and metrics.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, group, version string, segs []string) {
	q, err := s.parseResourcePath(group, version, segs)
	if errors.Is(err, errNoPage) {
		http.NotFound(w, r)
		return
	}
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
	if q.res.Warning != "" {
		addWarnings(w, []string{q.res.Warning})
	}
	if err := checkServed(r, q, verb); err != nil {
		writeError(w, err)
		return
	}
	r = r.WithContext(withManager(r.Context(), r.URL.Query().Get("fieldManager"), r.UserAgent()))

	switch verb {
	case "get":
		s.get(w, r, q)
	case "list":
		s.list(w, r, q)
	case "watch":
		s.watch(w, r, q)
	case "create":
		s.create(w, r, q)
	case "update":
		s.update(w, r, q)
	case "patch":
		s.patch(w, r, q)
	case "delete":
		s.delete(w, r, q)
	case "deletecollection":
		s.deleteCollection(w, r, q)
	}
}

// checkServed refuses a verb the resource or subresource does not serve,
// and answers a subresource miniapi can never serve with its message.
func checkServed(r *http.Request, q request, verb string) error {
	if q.sub != nil && q.sub.Unavailable != "" {
		return apierrors.NewBadRequest(q.sub.Unavailable)
	}
	served := q.res.Serves(verb)
	if q.sub != nil {
		served = q.sub.Serves(verb)
	}
	if verb == "" || !served {
		return apierrors.NewMethodNotSupported(schema.GroupResource{Group: q.res.Group, Resource: q.res.Resource}, r.Method)
	}
	return nil
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
		if q.name == "" || q.sub != nil {
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
		if q.sub == nil {
			return "delete"
		}
	}
	return ""
}
