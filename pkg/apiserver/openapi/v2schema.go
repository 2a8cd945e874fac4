package openapi

import (
	"encoding/json"
	"slices"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Vendor extensions of a custom resource's structural schema that change
// how it is published.
const (
	preserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
	embeddedResource      = "x-kubernetes-embedded-resource"
	intOrString           = "x-kubernetes-int-or-string"
)

func isTrue(s *spec.Schema, extension string) bool {
	v, ok := s.Extensions.GetBool(extension)
	return ok && v
}

// v2Compatible rewrites a custom resource's schema, in place, into what
// OpenAPI v2 (and kubectl reading it) can cope with, by kube-apiserver's
// rules:
//   - allOf, oneOf, anyOf and not go (v2 has only allOf, and the
//     structural schema's are value validations, not types), so
//     int-or-string is left with no type;
//   - a nullable field loses its type, properties and items (v2 cannot
//     say null), and its parent no longer requires it;
//   - a field that keeps unknown fields loses its properties and items,
//     and an object type (kubectl would reject what they do not name);
//   - an array left without items loses its type;
//   - defaults go, as from every definition of kube's v2 document.
func v2Compatible(s *spec.Schema) {
	s.AllOf, s.OneOf, s.AnyOf, s.Not = nil, nil, nil, nil
	s.Default = nil
	preserve := isTrue(s, preserveUnknownFields)
	if s.Nullable {
		s.Type, s.Nullable, s.Items, s.Properties = nil, false, nil, nil
	}
	if preserve {
		s.Items, s.Properties = nil, nil
	}
	if s.Type.Contains("array") && (s.Items == nil || s.Items.Schema == nil) {
		s.Type = nil
	}
	if preserve && s.Type.Contains("object") {
		s.Type = nil
	}
	for name, p := range s.Properties {
		if p.Nullable {
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil && ap.Schema.Nullable {
		s.Required = nil
	}
	if len(s.Required) == 0 {
		s.Required = nil
	}
	forEachChild(s, v2Compatible)
}

// expandIntOrString spells out, in v3, what x-kubernetes-int-or-string
// means: anyOf integer or string, or, where the schema already has an
// anyOf of its own, that alternative put first in an allOf. A schema that
// already says it is left alone.
func expandIntOrString(s *spec.Schema) {
	if isTrue(s, intOrString) && !isIntOrStringAnyOf(s.AnyOf) && !(len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf)) {
		if len(s.AnyOf) == 0 {
			s.AnyOf = intOrStringAnyOf()
		} else {
			s.AllOf = append([]spec.Schema{{SchemaProps: spec.SchemaProps{AnyOf: intOrStringAnyOf()}}}, s.AllOf...)
		}
	}
	forEachChild(s, expandIntOrString)
}

// forEachChild calls fn on the schemas s holds (its items, properties and
// additional properties), changing them in place.
func forEachChild(s *spec.Schema, fn func(*spec.Schema)) {
	if s.Items != nil && s.Items.Schema != nil {
		fn(s.Items.Schema)
	}
	for name, p := range s.Properties {
		fn(&p)
		s.Properties[name] = p
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		fn(s.AdditionalProperties.Schema)
	}
}

func intOrStringAnyOf() []spec.Schema {
	return []spec.Schema{scalar("integer"), scalar("string")}
}

// isIntOrStringAnyOf reports whether anyOf is exactly integer-or-string.
func isIntOrStringAnyOf(anyOf []spec.Schema) bool {
	if len(anyOf) != 2 {
		return false
	}
	got, err1 := json.Marshal(anyOf)
	want, err2 := json.Marshal(intOrStringAnyOf())
	return err1 == nil && err2 == nil && string(got) == string(want)
}
