package crd

import (
	"regexp"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// schemaTypes are the OpenAPI v3 types a property may have, sorted as kube
// lists them.
var schemaTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// unsupportedKeywordErrors reports the JSON-Schema keywords that CRD schemas do
// not support, and defaults where none can be applied.
func unsupportedKeywordErrors(s *apiextensions.JSONSchemaProps, path *field.Path, ctx nodeContext) field.ErrorList {
	var errs field.ErrorList
	if s.Type != "" && !slices.Contains(schemaTypes, s.Type) {
		errs = append(errs, field.NotSupported(path.Child("type"), s.Type, schemaTypes))
	}
	if s.Default != nil && !ctx.allowDefaults {
		detail := "must not be set"
		if ctx.noDefaultsReason != "" {
			detail += " " + ctx.noDefaultsReason
		}
		errs = append(errs, field.Forbidden(path.Child("default"), detail))
	}
	forbid := func(set bool, name, detail string) {
		if set {
			errs = append(errs, field.Forbidden(path.Child(name), detail))
		}
	}
	forbid(s.ID != "", "id", "id is not supported")
	forbid(s.AdditionalItems != nil, "additionalItems", "additionalItems is not supported")
	forbid(len(s.PatternProperties) > 0, "patternProperties", "patternProperties is not supported")
	forbid(len(s.Definitions) > 0, "definitions", "definitions is not supported")
	forbid(s.Dependencies != nil, "dependencies", "dependencies is not supported")
	forbid(s.Ref != nil, "$ref", "$ref is not supported")
	forbid(s.Type == "null", "type", "type cannot be set to null, use nullable as an alternative")
	forbid(s.Items != nil && len(s.Items.JSONSchemas) > 0, "items", "items must be a schema object and not an array")
	forbid(ctx.insideMeta && s.XEmbeddedResource, "x-kubernetes-embedded-resource", "must not be used inside of resource meta")
	return errs
}

// mapAndListTypeErrors checks x-kubernetes-map-type, x-kubernetes-list-type and
// x-kubernetes-list-map-keys, which tell server-side apply how to merge.
func mapAndListTypeErrors(s *apiextensions.JSONSchemaProps, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	typeMustBe := func(want, why string) {
		switch {
		case s.Type == "":
			errs = append(errs, field.Required(path.Child("type"), "must be "+want+" if "+why+" is specified"))
		case s.Type != want:
			errs = append(errs, field.Invalid(path.Child("type"), s.Type, "must be "+want+" if "+why+" is specified"))
		}
	}
	if s.XMapType != nil {
		typeMustBe("object", "x-kubernetes-map-type")
		if *s.XMapType != "atomic" && *s.XMapType != "granular" {
			errs = append(errs, field.NotSupported(path.Child("x-kubernetes-map-type"), *s.XMapType, []string{"atomic", "granular"}))
		}
	}
	if s.XListType != nil && s.Type != "array" {
		typeMustBe("array", "x-kubernetes-list-type")
	} else if s.XListType != nil && *s.XListType == "set" && s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, setItemErrors(s.Items.Schema, path.Child("items"))...)
	}
	if s.XListType != nil && !slices.Contains([]string{"atomic", "set", "map"}, *s.XListType) {
		errs = append(errs, field.NotSupported(path.Child("x-kubernetes-list-type"), *s.XListType, []string{"atomic", "set", "map"}))
	}
	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			errs = append(errs, field.Required(path.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *s.XListType != "map" {
			errs = append(errs, field.Invalid(path.Child("x-kubernetes-list-type"), *s.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if s.XListType != nil && *s.XListType == "map" {
		errs = append(errs, listMapErrors(s, path)...)
	}
	return append(errs, nullableListItemErrors(s, path)...)
}

// setItemErrors: the items of a set are compared whole, so they must be atomic.
func setItemErrors(items *apiextensions.JSONSchemaProps, path *field.Path) field.ErrorList {
	switch items.Type {
	case "array":
		if items.XListType != nil && *items.XListType != "atomic" {
			return field.ErrorList{field.Invalid(path.Child("x-kubernetes-list-type"), items.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set")}
		}
	case "object":
		if items.XMapType == nil || *items.XMapType != "atomic" {
			// kube reports the items' list type here, not their map type
			return field.ErrorList{field.Invalid(path.Child("x-kubernetes-map-type"), items.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set")}
		}
	}
	return nil
}

// listMapErrors: a map list is keyed by scalar properties of its object items.
func listMapErrors(s *apiextensions.JSONSchemaProps, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.XListMapKeys) == 0 {
		errs = append(errs, field.Required(path.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
	}
	if s.Items == nil {
		return append(errs, field.Required(path.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
	}
	if s.Items.Schema == nil {
		return append(errs, field.Invalid(path.Child("items"), s.Items, "must only have a single schema if x-kubernetes-list-type is map"))
	}
	items := s.Items.Schema
	if items.Type != "object" {
		return append(errs, field.Invalid(path.Child("items").Child("type"), items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
	}
	seen := map[string]bool{}
	for _, k := range s.XListMapKeys {
		if p, ok := items.Properties[k]; !ok {
			errs = append(errs, field.Invalid(path.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "entries must all be names of item properties"))
		} else if p.Type == "array" || p.Type == "object" {
			// kube reports the items' type here, not the key's
			errs = append(errs, field.Invalid(path.Child("items").Child("properties").Key(k).Child("type"), items.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
		}
		if seen[k] {
			errs = append(errs, field.Invalid(path.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "must not contain duplicate entries"))
		}
		seen[k] = true
	}
	return errs
}

// nullableListItemErrors: the items of a set or map list, and a map list's
// keys, cannot be null, and each key needs a value (required or defaulted).
func nullableListItemErrors(s *apiextensions.JSONSchemaProps, path *field.Path) field.ErrorList {
	if s.Items == nil || s.Items.Schema == nil || s.XListType == nil || (*s.XListType != "set" && *s.XListType != "map") {
		return nil
	}
	var errs field.ErrorList
	items := s.Items.Schema
	if items.Nullable {
		errs = append(errs, field.Forbidden(path.Child("items").Child("nullable"), "cannot be nullable when x-kubernetes-list-type is "+*s.XListType))
	}
	if *s.XListType != "map" {
		return errs
	}
	for _, k := range s.XListMapKeys {
		p, ok := items.Properties[k]
		if !ok {
			continue // reported by listMapErrors
		}
		keyPath := path.Child("items").Child("properties").Key(k)
		if !slices.Contains(items.Required, k) && p.Default == nil {
			errs = append(errs, field.Required(keyPath.Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if p.Nullable {
			errs = append(errs, field.Forbidden(keyPath.Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
	return errs
}

// celReasons are the reasons a CEL rule may give for its failure.
var celReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

// lineBreak matches the line breaks CEL's grammar knows.
var lineBreak = regexp.MustCompile(`[\n\r]+`)

// ruleFieldErrors checks the parts of each x-kubernetes-validations entry that
// need no compiling: a rule is given, a message is one non-empty line, the
// reason is known, and fieldPath resolves in the schema.
func ruleFieldErrors(s *apiextensions.JSONSchemaProps, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, rule := range s.XValidations {
		p := path.Child("x-kubernetes-validations").Index(i)
		ruleText, msg := strings.TrimSpace(rule.Rule), strings.TrimSpace(rule.Message)
		switch {
		case ruleText == "":
			errs = append(errs, field.Required(p.Child("rule"), "rule is not specified"))
		case rule.Message != "" && msg == "":
			errs = append(errs, field.Invalid(p.Child("message"), rule.Message, "must be non-empty if specified"))
		case lineBreak.MatchString(msg):
			errs = append(errs, field.Invalid(p.Child("message"), rule.Message, "must not contain line breaks"))
		case lineBreak.MatchString(ruleText) && msg == "":
			errs = append(errs, field.Required(p.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if rule.MessageExpression != "" && strings.TrimSpace(rule.MessageExpression) == "" {
			errs = append(errs, field.Required(p.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if rule.Reason != nil && !slices.Contains(celReasons, string(*rule.Reason)) {
			errs = append(errs, field.NotSupported(p.Child("reason"), *rule.Reason, celReasons))
		}
		errs = append(errs, ruleFieldPathErrors(s, rule.FieldPath, p.Child("fieldPath"))...)
	}
	return errs
}

// ruleFieldPathErrors checks a rule's fieldPath, where its error is reported.
func ruleFieldPathErrors(s *apiextensions.JSONSchemaProps, fieldPath string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if fieldPath != "" && strings.TrimSpace(fieldPath) == "" {
		errs = append(errs, field.Invalid(path, fieldPath, "must be non-empty if specified"))
	}
	if lineBreak.MatchString(fieldPath) {
		errs = append(errs, field.Invalid(path, fieldPath, "must not contain line breaks"))
	}
	if fieldPath != "" {
		if ss, err := structuralschema.NewStructural(s); err == nil {
			if _, _, err := cel.ValidFieldPath(fieldPath, ss); err != nil {
				errs = append(errs, field.Invalid(path, fieldPath, "must be a valid path"))
			}
		}
	}
	return errs
}
