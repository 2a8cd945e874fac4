package apiserver

// What the write handlers (create, update, patch) share around their
// own work: reading the request's options and answering the result.

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// negotiateWrite reads what every write request says before its body: the
// answer's format and whether it is a dry run.
func negotiateWrite(r *http.Request, q request) (out output, dryRun bool, err error) {
	if out, err = negotiate(r, q.res); err != nil {
		return output{}, false, err
	}
	dryRun, err = isDryRun(r)
	return out, dryRun, err
}

// answerWrite answers a write of q: its error, or the written object with
// the warnings decoding the request produced and, for the main resource,
// the kind's own (registry.Warner).
func (s *Server) answerWrite(w http.ResponseWriter, q request, out output, code int, obj runtime.Object, warnings []string, err error) {
	if err != nil {
		writeError(w, err)
		return
	}
	if warner, ok := q.res.Strategy.(registry.Warner); ok && q.sub == nil {
		warnings = append(warnings, warner.Warnings(obj)...)
	}
	addWarnings(w, warnings)
	s.writeObject(w, out, code, obj)
}
