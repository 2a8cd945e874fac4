package openapi

import (
	"fmt"
	"strings"

	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The OpenAPI v3 document of one group version: kube-openapi's
// definitions and miniapi's paths.

// v3Builder renders the group versions' documents. They share what they
// have in common: the definitions (kube-openapi's builder makes each once
// for all documents), and the parameters and contents of the operations,
// which repeat hundreds of times; the handler keeps the documents for as
// long as it serves them.
type v3Builder struct {
	defs     map[string]common.OpenAPIDefinition
	schemas  map[string]*spec.Schema
	params   map[param]*spec3.Parameter
	contents map[string]map[string]*spec3.MediaType
}

// v3Builder builds the v3 definitions every group version's operations
// name, and those they refer to.
func (m model) v3Builder() (*v3Builder, error) {
	b := &v3Builder{
		defs:     openAPIDefinitions(m.defs.customV3)(refV3),
		params:   map[param]*spec3.Parameter{},
		contents: map[string]map[string]*spec3.MediaType{},
	}
	cfg := &common.OpenAPIV3Config{Info: info, Definitions: b.defs, GetDefinitionName: m.defs.definitionName}
	var err error
	if b.schemas, err = builder3.BuildOpenAPIDefinitionsForResources(cfg, m.defs.roots...); err != nil {
		return nil, fmt.Errorf("openapi: v3 definitions: %w", err)
	}
	return b, nil
}

// document renders one group version's document: its paths, and the
// definitions they name with those these refer to.
func (b *v3Builder) document(m model, gv string) *spec3.OpenAPI {
	items := m.paths[gv]
	doc := &spec3.OpenAPI{
		Version:    "3.0.0",
		Info:       info,
		Paths:      &spec3.Paths{Paths: map[string]*spec3.Path{}},
		Components: &spec3.Components{Schemas: map[string]*spec.Schema{}},
	}
	b.addSchemas(doc.Components.Schemas, rootsOf(items))
	for _, it := range items {
		doc.Paths.Paths[it.path] = b.path(it)
	}
	return doc
}

// addSchemas adds the named definitions to schemas, with those they
// depend on (openapi-gen lists them in Dependencies).
func (b *v3Builder) addSchemas(schemas map[string]*spec.Schema, names []string) {
	for _, name := range names {
		if _, done := schemas[name]; done {
			continue
		}
		schemas[name] = b.schemas[name]
		b.addSchemas(schemas, b.defs[name].Dependencies)
	}
}

func (b *v3Builder) param(p param) *spec3.Parameter {
	if out, ok := b.params[p]; ok {
		return out
	}
	s := &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{p.typ}}}
	s.UniqueItems = true
	out := &spec3.Parameter{ParameterProps: spec3.ParameterProps{Name: p.name, In: p.in, Description: p.description, Required: p.required, Schema: s}}
	b.params[p] = out
	return out
}

func (b *v3Builder) path(it pathItem) *spec3.Path {
	path := &spec3.Path{}
	for _, p := range it.params {
		path.Parameters = append(path.Parameters, b.param(p))
	}
	for _, op := range it.ops {
		*methodField(op.method, &path.Get, &path.Put, &path.Post, &path.Patch, &path.Delete) = b.operation(op)
	}
	return path
}

// content is a request's or response's body: def in each of types.
func (b *v3Builder) content(types []string, def string) map[string]*spec3.MediaType {
	key := strings.Join(types, ",") + " " + def
	if out, ok := b.contents[key]; ok {
		return out
	}
	out := content(types, def)
	b.contents[key] = out
	return out
}

func content(types []string, def string) map[string]*spec3.MediaType {
	out := map[string]*spec3.MediaType{}
	s := refSchema(refPrefixV3, def)
	for _, t := range types {
		out[t] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: &s}}
	}
	return out
}

func (b *v3Builder) operation(op operation) *spec3.Operation {
	o := &spec3.Operation{OperationProps: spec3.OperationProps{
		Tags: []string{op.tag}, Description: op.description, OperationId: op.id,
		Responses: &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{
			401: {ResponseProps: spec3.ResponseProps{Description: statusText(401)}},
		}}},
	}}
	for _, p := range op.query {
		o.Parameters = append(o.Parameters, b.param(p))
	}
	if op.body != "" {
		o.RequestBody = &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{Content: b.content(consumes(op), op.body), Required: op.method != "delete"}}
	}
	for code, def := range op.responses {
		o.Responses.StatusCodeResponses[code] = &spec3.Response{ResponseProps: spec3.ResponseProps{Description: statusText(code), Content: b.content(produces(op), def)}}
	}
	o.AddExtension("x-kubernetes-action", op.action)
	o.AddExtension("x-kubernetes-group-version-kind", gvkExtension(op.gvk))
	return o
}
