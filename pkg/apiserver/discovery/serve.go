package discovery

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
)

// aggregatedParams are the media type parameters of the aggregated list,
// in the order client-go sends them.
const aggregatedParams = ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// AggregatedContentType is the media type of an aggregated discovery
// answer in JSON; client-go decides how to parse the body from it alone.
const AggregatedContentType = runtime.ContentTypeJSON + aggregatedParams

// offers are the encodings of every discovery document, in the server's
// order of preference.
var offers = negotiation.Offers(runtime.ContentTypeJSON, runtime.ContentTypeYAML)

// aggregatedKind is the conversion a client asks for to get the aggregated
// list.
var aggregatedKind = schema.GroupVersionKind{Group: "apidiscovery.k8s.io", Version: "v2", Kind: "APIGroupDiscoveryList"}

// allows: every path serves its legacy document; /api and /apis also the
// aggregated list.
func allows(aggregated bool) negotiation.Allows {
	return func(_ runtime.SerializerInfo, convert *schema.GroupVersionKind) bool {
		return convert == nil || (aggregated && *convert == aggregatedKind)
	}
}

func encodeAggregated(list apidiscoveryv2.APIGroupDiscoveryList) (encoded, error) {
	b, err := json.Marshal(list)
	if err != nil {
		return encoded{}, fmt.Errorf("discovery: encoding aggregated list: %w", err)
	}
	return encoded{body: b, etag: etag(b)}, nil
}

// etag is a strong validator of a document's bytes, quoted as HTTP wants.
func etag(b []byte) string {
	return fmt.Sprintf("%q", fmt.Sprintf("%X", sha256.Sum256(b)))
}

// serveAggregated writes the aggregated document with kube-apiserver's
// caching headers, and 304 when the client's copy is current.
func (d *documents) serveAggregated(w http.ResponseWriter, r *http.Request, path, mediaType string) {
	doc := d.aggregated[path]
	h := w.Header()
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "public")
	h.Set("ETag", doc.etag)
	if r.Header.Get("If-None-Match") == doc.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeDocument(w, r, mediaType, mediaType+aggregatedParams, doc.body)
}

// serveLegacyVersions writes /api, naming the address the client used.
func (d *documents) serveLegacyVersions(w http.ResponseWriter, r *http.Request, mediaType string) {
	var versions metav1.APIVersions
	if err := json.Unmarshal(d.legacy["/api"], &versions); err != nil {
		negotiation.WriteError(w, r, err)
		return
	}
	body, err := json.Marshal(apiVersions(versions.Versions, r.Host))
	if err != nil {
		negotiation.WriteError(w, r, err)
		return
	}
	writeDocument(w, r, mediaType, mediaType, body)
}

// writeDocument writes a JSON document in mediaType: YAML as it is,
// legacy JSON indented for curl (and for ?pretty=true), as kube-apiserver
// indents every JSON answer for it.
func writeDocument(w http.ResponseWriter, r *http.Request, mediaType, contentType string, body []byte) {
	switch {
	case mediaType == runtime.ContentTypeYAML:
		y, err := yaml.JSONToYAML(body)
		if err != nil {
			negotiation.WriteError(w, r, err)
			return
		}
		body = y
	case contentType == runtime.ContentTypeJSON && negotiation.Pretty(r):
		var buf bytes.Buffer
		if json.Indent(&buf, body, "", "  ") == nil {
			body = append(buf.Bytes(), '\n')
		}
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func status(code int32, reason metav1.StatusReason, message string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message,
		Details: &metav1.StatusDetails{},
	}}
}

func notFound() error {
	return status(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
}

func methodNotAllowed(method string) error {
	return status(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on discovery documents", method))
}
