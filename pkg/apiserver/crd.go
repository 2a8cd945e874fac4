package apiserver

import (
	"fmt"
	"net/http"
)

// customResourceDefinitions answers the list of CRDs, which is always empty:
// miniapi serves no custom resources. kubectl looks an unknown kind up there
// before it reports "no matches for kind ... ensure CRDs are installed
// first"; without this answer it would stop at the lookup with a less
// helpful error. The group itself is not in discovery, as nothing else of it
// is served.
func (s *Server) customResourceDefinitions(w http.ResponseWriter, r *http.Request) {
	body := fmt.Sprintf(`{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","metadata":{"resourceVersion":"%d"},"items":[]}`, s.store.Revision())
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}
