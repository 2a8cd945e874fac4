package openapi

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// What the v2 and v3 renderers (v2.go, v3.go) share: the media types,
// tags and response texts of the operations.

// mediaTypes are what operations take and answer.
type mediaTypes struct {
	consumes []string // request bodies other than patches
	patches  []string
	produces []string
	watch    []string // answers of a list that may be a watch, besides produces
}

// The media types kube-apiserver declares for the operations of built-in
// kinds and of custom resources.
var (
	builtinMedia = mediaTypes{
		consumes: []string{"*/*"},
		patches:  []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"},
		produces: []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"},
		watch:    []string{"application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"},
	}
	customMedia = mediaTypes{
		consumes: []string{"application/json", "application/yaml"},
		patches:  []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"},
		produces: []string{"application/json", "application/yaml"},
	}
)

func produces(op operation) []string {
	if op.watchable {
		return append(append([]string{}, op.media.produces...), op.media.watch...)
	}
	return op.media.produces
}

func consumes(op operation) []string {
	if op.patchBody {
		return op.media.patches
	}
	return op.media.consumes
}

func gvkExtension(gvk schema.GroupVersionKind) map[string]interface{} {
	return map[string]interface{}{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}
}

// tagOf is kube's tag of an operation: group and version, the group in
// lower camel case (rbacAuthorization_v1, exampleCom_v1).
func tagOf(gvk schema.GroupVersionKind) string {
	group := title(groupName(gvk.Group))
	return strings.ToLower(group[:1]) + group[1:] + "_" + gvk.Version
}

func statusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 201:
		return "Created"
	case 202:
		return "Accepted"
	}
	return "Unauthorized"
}

// methodField is the field of a v2 or v3 path item that holds the
// operation of method (one of operation.method's).
func methodField[O any](method string, get, put, post, patch, del *O) *O {
	return map[string]*O{"get": get, "put": put, "post": post, "patch": patch, "delete": del}[method]
}

// info is what kube-apiserver's documents say of themselves.
var info = &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "v1.37.2"}}

func refSchema(prefix, name string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(prefix + name)}}
}
