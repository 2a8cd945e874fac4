package apiserver

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// format is the encoding of a response body.
type format int

const (
	formatJSON format = iota
	formatYAML
	formatProtobuf
)

// view is what a response holds: the objects themselves, a server-side
// Table of them (kubectl get), or only their metadata (metadata informers).
type view int

const (
	viewObject view = iota
	viewTable
	viewPartial
)

// output is the negotiated shape of a response.
type output struct {
	format format
	view   view
	// includeObject is the Table rows' object: None, Metadata (default)
	// or Object.
	includeObject string
	// pretty indents JSON, as kube-apiserver does for curl.
	pretty bool
	// table renders the resource's Tables; nil where there is none.
	table registry.TableFunc
	// partialKind is the PartialObjectMetadata kind asked for (the list
	// kind or not), and partialVersion its meta.k8s.io version.
	partialKind, partialVersion string
}

const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// contentType is the Content-Type header of a body in this output.
func (o output) contentType() string {
	switch o.format {
	case formatYAML:
		return mediaYAML
	case formatProtobuf:
		return mediaProtobuf
	}
	return mediaJSON
}

// negotiate picks the output for a resource request as kube-apiserver
// does: by q-value, then the server's order (JSON, YAML, protobuf). A
// clause may ask for a Table (JSON, meta.k8s.io/v1) or for
// PartialObjectMetadata(List) (JSON or protobuf, meta.k8s.io v1 or
// v1beta1); res is the resource asked for (nil for none). Custom
// resources have no protobuf form: a client asking for it gets JSON, as
// from kube-apiserver (test/e2e/crd replays what it answers).
func negotiate(r *http.Request, res *registry.Resource) (output, error) {
	out := output{includeObject: r.URL.Query().Get("includeObject"), pretty: negotiation.Pretty(r)}
	if res != nil {
		out.table = res.Table
	}
	if out.includeObject == "" {
		out.includeObject = "Metadata"
	}
	got, err := negotiation.MediaType(r.Header.Get("Accept"), scheme.Codecs.SupportedMediaTypes(), resourceAllows(res))
	if err != nil {
		return out, err
	}
	switch got.Offer.MediaType {
	case mediaYAML:
		out.format = formatYAML
	case mediaProtobuf:
		if got.Convert != nil || !isCustom(res) {
			out.format, out.pretty = formatProtobuf, false
		}
	}
	if c := got.Convert; c != nil {
		if c.Kind == "Table" {
			out.view = viewTable
		} else {
			out.view, out.partialKind, out.partialVersion = viewPartial, c.Kind, c.Version
		}
	}
	return out, nil
}

func isCustom(res *registry.Resource) bool { return res != nil && res.Schema != nil }

// resourceAllows says which answers a resource path can give: its objects
// in any format (a custom resource's protobuf is answered in JSON), their
// Table in JSON, their metadata in JSON or protobuf.
func resourceAllows(res *registry.Resource) negotiation.Allows {
	return func(offer runtime.SerializerInfo, convert *schema.GroupVersionKind) bool {
		mt := offer.MediaType
		if convert == nil {
			return true
		}
		if convert.Group != "meta.k8s.io" || (convert.Version != "v1" && convert.Version != "v1beta1") {
			return false
		}
		switch convert.Kind {
		case "Table":
			return mt == mediaJSON && convert.Version == "v1"
		case "PartialObjectMetadata", "PartialObjectMetadataList":
			return mt == mediaJSON || mt == mediaProtobuf
		}
		return false
	}
}
