// Package discovery serves the API discovery documents: /api, /api/v1,
// /apis, /apis/<group> and /apis/<group>/<version>, in the legacy form and
// in the aggregated form (apidiscovery.k8s.io/v2) kubectl asks for first.
//
// Basics: every document is built once from the registry's resources and
// encoded once; requests only pick one and write it. A client that sends
// `Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`
// to /api or /apis gets the aggregated list (two requests describe the
// whole server); any other client gets the legacy documents.
//
// The Accept header is read as kube-apiserver reads it (q-values, then
// JSON before YAML); see package negotiation.
//
// Caveats: JSON and YAML are served, not protobuf (kube-apiserver serves
// all three, and the aggregated list's v2beta1 too). A client that accepts
// nothing but protobuf gets 406 Not Acceptable; client-go always offers
// JSON as a fallback.
package discovery

import (
	"net/http"
	"strings"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// NewHandler returns the handler for the discovery paths of resources.
// The documents are built now; a server whose resources change builds a
// new handler.
func NewHandler(resources []*registry.Resource) (http.Handler, error) {
	return build(resources)
}

// ServeHTTP answers GET (and HEAD) for the discovery paths.
func (d *documents) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		negotiation.WriteError(w, r, methodNotAllowed(r.Method))
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	got, err := negotiation.MediaType(r.Header.Get("Accept"), offers, allows(path == "/api" || path == "/apis"))
	if err != nil {
		negotiation.WriteError(w, r, err)
		return
	}
	if got.Convert != nil {
		d.serveAggregated(w, r, path, got.Offer.MediaType)
		return
	}
	switch doc, ok := d.legacy[path]; {
	case ok && path == "/api":
		d.serveLegacyVersions(w, r, got.Offer.MediaType)
	case ok:
		writeDocument(w, r, got.Offer.MediaType, got.Offer.MediaType, doc)
	default:
		negotiation.WriteError(w, r, notFound())
	}
}
