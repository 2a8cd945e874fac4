package openapi

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

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

// ---- OpenAPI v2 ----

func (m model) swagger() *spec.Swagger {
	sw := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "v1.37.2"}},
		Paths:       &spec.Paths{Paths: map[string]spec.PathItem{}},
		Definitions: spec.Definitions(m.defs),
	}}
	for _, gv := range m.groupVersions {
		for _, it := range m.paths[gv] {
			sw.Paths.Paths[it.path] = pathItemV2(it)
		}
	}
	return sw
}

func paramV2(p param) spec.Parameter {
	out := spec.Parameter{ParamProps: spec.ParamProps{Name: p.name, In: p.in, Description: p.description, Required: p.required},
		SimpleSchema: spec.SimpleSchema{Type: p.typ}}
	out.UniqueItems = true
	return out
}

func pathItemV2(it pathItem) spec.PathItem {
	var item spec.PathItem
	for _, p := range it.params {
		item.Parameters = append(item.Parameters, paramV2(p))
	}
	for _, op := range it.ops {
		o := operationV2(op)
		switch op.method {
		case "get":
			item.Get = o
		case "put":
			item.Put = o
		case "post":
			item.Post = o
		case "patch":
			item.Patch = o
		case "delete":
			item.Delete = o
		}
	}
	return item
}

func operationV2(op operation) *spec.Operation {
	o := &spec.Operation{OperationProps: spec.OperationProps{
		ID: op.id, Description: op.description, Tags: []string{op.tag},
		Consumes: consumes(op), Produces: produces(op), Schemes: []string{"https"},
		Responses: &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{
			401: {ResponseProps: spec.ResponseProps{Description: statusText(401)}},
		}}},
	}}
	if op.body != "" {
		body := refSchema("#/definitions/", op.body)
		o.Parameters = append(o.Parameters, spec.Parameter{ParamProps: spec.ParamProps{Name: "body", In: "body", Required: op.method != "delete", Schema: &body}})
	}
	for _, p := range op.query {
		o.Parameters = append(o.Parameters, paramV2(p))
	}
	for code, def := range op.responses {
		s := refSchema("#/definitions/", def)
		o.Responses.StatusCodeResponses[code] = spec.Response{ResponseProps: spec.ResponseProps{Description: statusText(code), Schema: &s}}
	}
	o.AddExtension("x-kubernetes-action", op.action)
	o.AddExtension("x-kubernetes-group-version-kind", gvkExtension(op.gvk))
	return o
}

func refSchema(prefix, name string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(prefix + name)}}
}

// ---- OpenAPI v3 ----

// openAPIV3 renders one group version's document.
func (m model) openAPIV3(gv string) *spec3.OpenAPI {
	items := m.paths[gv]
	doc := &spec3.OpenAPI{
		Version:    "3.0.0",
		Info:       &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "v1.37.2"}},
		Paths:      &spec3.Paths{Paths: map[string]*spec3.Path{}},
		Components: &spec3.Components{Schemas: map[string]*spec.Schema{}},
	}
	for name, s := range m.reachable(rootsOf(items)) {
		doc.Components.Schemas[name] = &s
	}
	for _, it := range items {
		doc.Paths.Paths[it.path] = pathV3(it)
	}
	return doc
}

func paramV3(p param) *spec3.Parameter {
	s := &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{p.typ}}}
	s.UniqueItems = true
	return &spec3.Parameter{ParameterProps: spec3.ParameterProps{Name: p.name, In: p.in, Description: p.description, Required: p.required, Schema: s}}
}

func pathV3(it pathItem) *spec3.Path {
	path := &spec3.Path{}
	for _, p := range it.params {
		path.Parameters = append(path.Parameters, paramV3(p))
	}
	for _, op := range it.ops {
		o := operationV3(op)
		switch op.method {
		case "get":
			path.Get = o
		case "put":
			path.Put = o
		case "post":
			path.Post = o
		case "patch":
			path.Patch = o
		case "delete":
			path.Delete = o
		}
	}
	return path
}

func content(types []string, def string) map[string]*spec3.MediaType {
	out := map[string]*spec3.MediaType{}
	for _, t := range types {
		s := refSchema("#/components/schemas/", def)
		out[t] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: &s}}
	}
	return out
}

func operationV3(op operation) *spec3.Operation {
	o := &spec3.Operation{OperationProps: spec3.OperationProps{
		Tags: []string{op.tag}, Description: op.description, OperationId: op.id,
		Responses: &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{
			401: {ResponseProps: spec3.ResponseProps{Description: statusText(401)}},
		}}},
	}}
	for _, p := range op.query {
		o.Parameters = append(o.Parameters, paramV3(p))
	}
	if op.body != "" {
		o.RequestBody = &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{Content: content(consumes(op), op.body), Required: op.method != "delete"}}
	}
	for code, def := range op.responses {
		o.Responses.StatusCodeResponses[code] = &spec3.Response{ResponseProps: spec3.ResponseProps{Description: statusText(code), Content: content(produces(op), def)}}
	}
	o.AddExtension("x-kubernetes-action", op.action)
	o.AddExtension("x-kubernetes-group-version-kind", gvkExtension(op.gvk))
	return o
}
