package openapi

import (
	"fmt"

	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The OpenAPI v2 document: kube-openapi's definitions and miniapi's
// paths.

// swagger renders the v2 document: kube-openapi's builder gives the
// definitions the operations name and those they refer to. The paths join
// before the builder finishes, so that it hoists the parameters operations
// share into the document's "parameters", as kube-apiserver's v2 has them
// (it keeps fieldValidation and dryRun in each operation, where kubectl
// looks for them).
func (m model) swagger() (*spec.Swagger, error) {
	sw, err := builder.BuildOpenAPIDefinitionsForResources(&common.Config{
		Info:              info,
		GetDefinitions:    openAPIDefinitions(m.defs.customV2),
		GetDefinitionName: m.defs.definitionName,
		PostProcessSpec: func(sw *spec.Swagger) (*spec.Swagger, error) {
			for _, gv := range m.groupVersions {
				for _, it := range m.paths[gv] {
					sw.Paths.Paths[it.path] = pathItemV2(it)
				}
			}
			return sw, nil
		},
	}, m.defs.roots...)
	if err != nil {
		return nil, fmt.Errorf("openapi: v2 document: %w", err)
	}
	return sw, nil
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
		*methodField(op.method, &item.Get, &item.Put, &item.Post, &item.Patch, &item.Delete) = operationV2(op)
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
