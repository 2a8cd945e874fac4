// Package openapi serves the OpenAPI v2 and v3 documents that describe the
// served kinds, built from the definitions openapi-gen generated and the
// custom resources' schemas.
//
// Basics: the schemas of built-in kinds are those kube-apiserver
// publishes: package generated holds openapi-gen's definitions of the
// k8s.io/api and apimachinery types (make generate writes it), with the
// enums, list and map types and required fields of the Go markers, named
// by their model names (io.k8s.api.apps.v1.Deployment). kube-openapi's
// builders take from them what each document's operations name. A custom
// resource's schema comes from its CRD (registry.Schema.OpenAPI),
// completed and named as kube-apiserver does (com.example.v1.Widget; see
// custom.go), in a v2-compatible form for /openapi/v2 (v2schema.go). The
// paths and operations are miniapi's own (operations.go), as no go-restful
// routes describe them. Every write operation declares the fieldValidation
// query parameter: kubectl looks for it on PATCH to decide that the server
// validates fields itself, and otherwise validates on the client.
// kube-openapi's handlers serve the documents: /openapi/v2 in JSON or
// protobuf with its ETag, /openapi/v3 and each group version in JSON or
// protobuf, with the ?hash= redirect.
//
// Caveats: kube-openapi answers an Accept it cannot serve with an empty
// 406, and an unknown group version with an empty 200; miniapi negotiates
// first (package negotiation) and answers both with a Status naming what
// is served, as on every other path. kube-openapi's handlers keep each
// document and its encodings for as long as the registry does not change:
// some 12 MiB of heap once they have been asked for (they are built on the
// first request, so a server nobody asks keeps none of it).
package openapi

import (
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/handler3"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// Media types of the protobuf forms kubectl may ask for. kube-openapi
// answers both spellings with the dotted one: "@" is not allowed in a
// media type, and client-go's mime parsing rejects it.
const (
	v2Protobuf       = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	v2ProtobufLegacy = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	v3Protobuf       = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
	v3ProtobufDotted = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
)

// openAPIHandler serves /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>
// through kube-openapi's handlers, once the request is known to be one
// they can answer.
type openAPIHandler struct {
	v2 http.Handler
	v3 *handler3.OpenAPIService
	// groupVersions are the v3 documents served, "api/v1", "apis/apps/v1".
	groupVersions map[string]bool
}

// NewHandler returns the handler for /openapi/v2, /openapi/v3 and
// /openapi/v3/<group-version path>.
func NewHandler(resources []*registry.Resource) (http.Handler, error) {
	m, err := buildModel(resources)
	if err != nil {
		return nil, err
	}
	sw, err := m.swagger()
	if err != nil {
		return nil, err
	}
	h := &openAPIHandler{v3: handler3.NewOpenAPIService(), groupVersions: map[string]bool{}}
	mux := http.NewServeMux()
	handler.NewOpenAPIService(sw).RegisterOpenAPIVersionedService("/openapi/v2", mux)
	h.v2 = mux
	v3, err := m.v3Builder()
	if err != nil {
		return nil, err
	}
	for _, gv := range m.groupVersions {
		h.v3.UpdateGroupVersion(gv, v3.document(m, gv))
		h.groupVersions[gv] = true
	}
	return h, nil
}

func (h *openAPIHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		negotiation.WriteError(w, r, statusError(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, r.Method+" is not supported on OpenAPI documents"))
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/openapi/v2":
		if accepted(w, r, v2Offers) {
			r.URL.Path = path
			h.v2.ServeHTTP(w, r)
		}
	case path == "/openapi/v3":
		// kube-apiserver answers the root in JSON whatever is asked.
		h.v3.HandleDiscovery(w, r)
	case strings.HasPrefix(path, "/openapi/v3/") && h.groupVersions[strings.TrimPrefix(path, "/openapi/v3/")]:
		if accepted(w, r, v3Offers) {
			r.URL.Path = path
			h.v3.HandleGroupVersion(w, r)
		}
	default:
		negotiation.WriteError(w, r, errNotFound())
	}
}

// accepted reports whether the request's Accept names one of offers, and
// answers 406 when it does not.
func accepted(w http.ResponseWriter, r *http.Request, offers []runtime.SerializerInfo) bool {
	if _, err := negotiation.MediaType(r.Header.Get("Accept"), offers, anyParams); err != nil {
		negotiation.WriteError(w, r, err)
		return false
	}
	return true
}

// v2Offers are the encodings of /openapi/v2 and v3Offers those of a v3
// group version, in kube-openapi's order.
var (
	v2Offers = negotiation.Offers(runtime.ContentTypeJSON, v2Protobuf, v2ProtobufLegacy)
	v3Offers = negotiation.Offers(runtime.ContentTypeJSON, v3ProtobufDotted, v3Protobuf)
)

// anyParams: kube-openapi matches media types without their parameters.
func anyParams(runtime.SerializerInfo, *schema.GroupVersionKind) bool { return true }

func statusError(code int32, reason metav1.StatusReason, message string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message}}
}

func errNotFound() error {
	return statusError(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
}
