package apiserver

import (
	"mime"
	"net/http"
	"strings"

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

// wantsPretty: kube-apiserver indents JSON, objects and errors alike, for
// curl's User-Agent and for ?pretty=true.
func wantsPretty(r *http.Request) bool {
	return strings.HasPrefix(r.UserAgent(), "curl/") || r.URL.Query().Get("pretty") == "true"
}

// negotiate reads the Accept header the way kube-apiserver does for the
// types miniapi serves: the first acceptable entry wins. Tables are
// answered in JSON, PartialObjectMetadata in JSON or protobuf; res is
// the resource asked for (nil for none). Custom resources have no
// protobuf form: a client asking for it gets JSON, as from kube-apiserver.
func negotiate(r *http.Request, res *registry.Resource) (output, error) {
	out := output{includeObject: r.URL.Query().Get("includeObject")}
	if res != nil {
		out.table = res.Table
	}
	if out.includeObject == "" {
		out.includeObject = "Metadata"
	}
	out.pretty = wantsPretty(r)
	accept := r.Header.Get("Accept")
	if strings.TrimSpace(accept) == "" {
		return out, nil
	}
	for _, entry := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(entry))
		if err != nil {
			continue
		}
		if as := params["as"]; as != "" {
			if params["g"] != "meta.k8s.io" || (params["v"] != "v1" && params["v"] != "v1beta1") {
				continue
			}
			switch {
			case as == "Table" && mt == mediaJSON && params["v"] == "v1":
				out.view = viewTable
			case (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") && (mt == mediaJSON || mt == mediaProtobuf):
				out.view, out.partialKind, out.partialVersion = viewPartial, as, params["v"]
				if mt == mediaProtobuf {
					out.format, out.pretty = formatProtobuf, false
				}
			default:
				continue
			}
			return out, nil
		}
		switch mt {
		case mediaJSON, "*/*", "application/*":
			return out, nil
		case mediaYAML:
			out.format = formatYAML
			return out, nil
		case mediaProtobuf:
			if res == nil || res.Schema == nil {
				out.format = formatProtobuf
				out.pretty = false
			}
			return out, nil
		}
	}
	return out, errNotAcceptable()
}
