// Package discovery serves the API discovery documents: /api, /api/v1,
// /apis, /apis/<group> and /apis/<group>/<version>, in the legacy form and
// in the aggregated form (apidiscovery.k8s.io/v2) kubectl asks for first.
package discovery

import (
	"net/http"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// NewHandler returns the handler for the discovery paths.
func NewHandler(resources []registry.Resource) http.Handler {
	return http.NotFoundHandler()
}
