package discovery

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AggregatedContentType is the media type of an aggregated discovery
// answer; client-go decides how to parse the body from it alone.
const AggregatedContentType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// wantsAggregated reports whether the Accept header asks for the
// aggregated APIGroupDiscoveryList in JSON, and the media type to answer
// with.
func wantsAggregated(accept string) (string, bool) {
	for _, part := range strings.Split(accept, ",") {
		typ, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || typ != "application/json" {
			continue
		}
		if params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" && params["as"] == "APIGroupDiscoveryList" {
			return AggregatedContentType, true
		}
	}
	return "", false
}

// acceptsJSON reports whether plain JSON is acceptable to the client.
func acceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		typ, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch typ {
		case "application/json", "application/*", "*/*":
			return true
		}
	}
	return false
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
func (d *documents) serveAggregated(w http.ResponseWriter, r *http.Request, path, contentType string) {
	doc := d.aggregated[path]
	h := w.Header()
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "public")
	h.Set("ETag", doc.etag)
	if r.Header.Get("If-None-Match") == doc.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeJSON(w, r, contentType, doc.body)
}

// serveLegacyVersions writes /api, naming the address the client used.
func (d *documents) serveLegacyVersions(w http.ResponseWriter, r *http.Request) {
	var versions metav1.APIVersions
	if err := json.Unmarshal(d.legacy["/api"], &versions); err != nil {
		writeStatus(w, internalError(err))
		return
	}
	body, err := json.Marshal(apiVersions(versions.Versions, r.Host))
	if err != nil {
		writeStatus(w, internalError(err))
		return
	}
	writeJSON(w, r, "application/json", body)
}

// writeJSON writes a document; a legacy one indented for curl (and for
// ?pretty=true), as kube-apiserver indents every JSON answer for it.
func writeJSON(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	if contentType == "application/json" && wantsPretty(r) {
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

// wantsPretty: kube-apiserver indents JSON for curl's User-Agent and for
// ?pretty=true.
func wantsPretty(r *http.Request) bool {
	return strings.HasPrefix(r.UserAgent(), "curl/") || r.URL.Query().Get("pretty") == "true"
}

func status(code int32, reason metav1.StatusReason, message string) *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: message,
		Details: &metav1.StatusDetails{},
	}
}

func notFound() *metav1.Status {
	return status(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
}

func notAcceptable() *metav1.Status {
	return status(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: application/json, "+AggregatedContentType)
}

func methodNotAllowed(method string) *metav1.Status {
	return status(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on discovery documents", method))
}

func internalError(err error) *metav1.Status {
	return status(http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
}

func writeStatus(w http.ResponseWriter, s *metav1.Status) {
	b, _ := json.Marshal(s)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(s.Code))
	_, _ = w.Write(b)
}
