package pass

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/journal"
)

// WrapTransport is a rest.Config.Wrap function: it notes, in the pass of
// the request's context, the resourceVersion of every successful write's
// answer. Requests outside a pass (informers' lists and watches, events)
// go through untouched.
func WrapTransport(rt http.RoundTripper) http.RoundTripper { return writeNoter{next: rt} }

type writeNoter struct{ next http.RoundTripper }

func (t writeNoter) RoundTrip(req *http.Request) (*http.Response, error) {
	verb := writeVerbs[req.Method]
	if verb == "" || req.Context().Value(passKey{}) == nil {
		return t.next.RoundTrip(req)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode/100 != 2 {
		return resp, err
	}
	// A write's answer is one object: read it whole, note its version,
	// and hand the same bytes on.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return resp, nil // client-go reports the short body itself
	}
	w := writeOf(verb, req.URL.Path)
	if w.ResourceVersion = resourceVersionOf(resp.Header.Get("Content-Type"), body); w.ResourceVersion != "" {
		noteWrite(req.Context(), w)
	}
	return resp, nil
}

var writeVerbs = map[string]string{
	http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete",
}

// writeOf reads what was written from a request path:
// /api/v1/namespaces/NS/RESOURCE[/NAME[/SUBRESOURCE]] or the same under
// /apis/GROUP/VERSION, or a cluster-scoped /…/RESOURCE[/NAME…].
func writeOf(verb, path string) journal.Write {
	w := journal.Write{Verb: verb}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return w
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		w.Namespace, parts = parts[1], parts[2:]
	}
	if len(parts) > 0 {
		w.Resource = parts[0]
	}
	if len(parts) > 1 {
		w.Name = parts[1]
	}
	if len(parts) > 2 {
		w.Resource += "/" + parts[2] // status, scale, eviction…
	}
	return w
}

// protobufMagic begins every Kubernetes protobuf body.
var protobufMagic = []byte("k8s\x00")

// resourceVersionOf returns the resourceVersion of the object a write
// answered, "" when the answer is a Status (a delete that finished) or
// cannot be read.
func resourceVersionOf(contentType string, body []byte) string {
	media, _, _ := mime.ParseMediaType(contentType)
	if media == "application/vnd.kubernetes.protobuf" {
		// Every object's field 1 is its ObjectMeta, so PartialObjectMetadata
		// (whose field 1 is too) reads the metadata of any kind and skips
		// the rest. A Status's field 1 is a ListMeta: not an object's.
		var u runtime.Unknown
		if !bytes.HasPrefix(body, protobufMagic) || u.Unmarshal(body[len(protobufMagic):]) != nil || u.Kind == "Status" {
			return ""
		}
		var m metav1.PartialObjectMetadata
		if m.Unmarshal(u.Raw) != nil {
			return ""
		}
		return m.ResourceVersion
	}
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &obj) != nil || obj.Kind == "Status" {
		return ""
	}
	return obj.Metadata.ResourceVersion
}
