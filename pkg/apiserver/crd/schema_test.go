package crd

import (
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

type crdChange = func(c *apiextensionsv1.CustomResourceDefinition)

// onSpecSchema changes the schema of .spec.
func onSpecSchema(change func(s *apiextensionsv1.JSONSchemaProps)) crdChange {
	return func(c *apiextensionsv1.CustomResourceDefinition) {
		s := schemaOf(c).Properties["spec"]
		change(&s)
		setSpecSchema(c, s)
	}
}

// withSpecProp adds one property to .spec.
func withSpecProp(name string, p apiextensionsv1.JSONSchemaProps) crdChange {
	return onSpecSchema(func(s *apiextensionsv1.JSONSchemaProps) { s.Properties[name] = p })
}

func TestValidateStructuralSchema(t *testing.T) {
	runCreateCases(t, []createCase{
		{"property without type", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].type: Required value: must not be empty for specified object fields`,
		}},
		{"unknown type", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{Type: "text"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].type: Unsupported value: "text": supported values: "array", "boolean", "integer", "number", "object", "string"`,
		}},
		{"type null", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{Type: "null"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
		}},
		{"root not an object", func(c *apiextensionsv1.CustomResourceDefinition) {
			schemaOf(c).Type = "array"
		}, []string{
			`spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
			`spec.validation.openAPIV3Schema.items: Required value: must be specified`,
			`spec.validation.openAPIV3Schema.type: Invalid value: "array": must be object at the root`,
		}},
		{"nullable root", func(c *apiextensionsv1.CustomResourceDefinition) { schemaOf(c).Nullable = true }, []string{
			`spec.validation.openAPIV3Schema: Invalid value: {"ID":"","Schema":"","Ref":null,"Description":"","Type":"objec…s UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
			`spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root`,
		}},
		{"root field not allowed with status", func(c *apiextensionsv1.CustomResourceDefinition) {
			schemaOf(c).MaxProperties = ptr(int64(3))
		}, []string{
			`spec.validation.openAPIV3Schema: Invalid value: {"ID":"","Schema":"","Ref":null,"Description":"","Type":"objec…s UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
		}},
		{"ref", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{Type: "string", Ref: ptr("#/definitions/x")}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].$ref: Forbidden: $ref is not supported`,
		}},
		{"uniqueItems", withSpecProp("tags", apiextensionsv1.JSONSchemaProps{Type: "array", UniqueItems: true,
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
		}},
		{"array without items", withSpecProp("tags", apiextensionsv1.JSONSchemaProps{Type: "array"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[tags].items: Required value: must be specified`,
		}},
		{"properties and additionalProperties", withSpecProp("labels", apiextensionsv1.JSONSchemaProps{Type: "object",
			Properties:           map[string]apiextensionsv1.JSONSchemaProps{"a": {Type: "string"}},
			AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[labels].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
		}},
		{"preserve-unknown-fields false", withSpecProp("extra", apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(false)}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[extra].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
		}},
		{"metadata with a default", func(c *apiextensionsv1.CustomResourceDefinition) {
			schemaOf(c).Properties["metadata"] = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"name": {Type: "string", Default: raw(`"x"`)}}}
		}, []string{
			`spec.validation.openAPIV3Schema.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`,
		}},
		{"default of the wrong type", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{Type: "string", Default: raw(`3`)}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].default: Invalid value: "integer":  in body must be of type string: "integer"`,
		}},
		{"default breaks its own rule", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{Type: "string", Default: raw(`"circle"`), Enum: []apiextensionsv1.JSON{{Raw: []byte(`"square"`)}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].default: Unsupported value: "circle": supported values: "square"`,
		}},
		{"unpruned default", withSpecProp("box", apiextensionsv1.JSONSchemaProps{Type: "object", Default: raw(`{"a":1}`)}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[box].default: Invalid value: {"a":1}: must not have unknown fields`,
		}},
		{"map type on a string", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{Type: "string", XMapType: ptr("atomic")}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
		}},
		{"unknown list type", withSpecProp("tags", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("bag"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
		}},
		{"map list without keys", withSpecProp("ports", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("map"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"port": {Type: "integer"}}}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
		}},
		{"map list key not required", withSpecProp("ports", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("map"), XListMapKeys: []string{"port", "nope"},
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"port": {Type: "integer"}}}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-list-map-keys: Invalid value: ["port","nope"]: entries must all be names of item properties`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[port].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
		}},
		{"set of granular objects", withSpecProp("pairs", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("set"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"a": {Type: "string"}}}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[pairs].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`,
		}},
		{"non-atomic list in a set", withSpecProp("grid", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("set"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("set"),
				Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[grid].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set`,
		}},
		{"nullable set items", withSpecProp("tags", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("set"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", Nullable: true}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`,
		}},
		{"map list of strings", withSpecProp("ports", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("map"), XListMapKeys: []string{"port"},
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
		}},
		{"map list with object key, nullable key and duplicate keys", withSpecProp("ports", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("map"),
			XListMapKeys: []string{"port", "port", "meta"},
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Required: []string{"port", "meta"},
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"port": {Type: "integer", Nullable: true}, "meta": {Type: "object"}}}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-list-map-keys: Invalid value: ["port","port","meta"]: must not contain duplicate entries`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[meta].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[port].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[port].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
		}},
		{"errors inside allOf, anyOf, oneOf and not", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{Type: "string",
			AllOf: []apiextensionsv1.JSONSchemaProps{{UniqueItems: true}},
			AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "text"}},
			OneOf: []apiextensionsv1.JSONSchemaProps{{XValidations: []apiextensionsv1.ValidationRule{{Rule: " "}}}},
			Not:   &apiextensionsv1.JSONSchemaProps{Pattern: "^x"}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].anyOf[0].type: Forbidden: must be empty to be structural`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].oneOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].allOf[0].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].oneOf[0].x-kubernetes-validations[0].rule: Required value: rule is not specified`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].anyOf[0].type: Unsupported value: "text": supported values: "array", "boolean", "integer", "number", "object", "string"`,
		}},
		{"rules inside anyOf are not compiled", withSpecProp("shape", apiextensionsv1.JSONSchemaProps{Type: "string",
			AnyOf: []apiextensionsv1.JSONSchemaProps{{XValidations: []apiextensionsv1.ValidationRule{{Rule: "self.nope"}}}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
		}},
		{"status rules at the root only for the version with status", func(c *apiextensionsv1.CustomResourceDefinition) {
			v2 := *c.Spec.Versions[0].DeepCopy()
			v2.Name, v2.Storage, v2.Subresources = "v2", false, nil
			v2.Schema.OpenAPIV3Schema.Description = "v2" // its own schema, checked without status
			c.Spec.Versions = append(c.Spec.Versions, v2)
			for i := range c.Spec.Versions {
				c.Spec.Versions[i].Schema.OpenAPIV3Schema.MaxProperties = ptr(int64(5))
			}
		}, []string{
			`spec.versions[0].schema.openAPIV3Schema: Invalid value: {"ID":"","Schema":"","Ref":null,"Description":"","Type…s UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
		}},
		{"embedded resource in metadata", func(c *apiextensionsv1.CustomResourceDefinition) {
			schemaOf(c).Properties["metadata"] = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"inner": {Type: "object", XEmbeddedResource: true, XPreserveUnknownFields: ptr(true)}}}
		}, []string{
			`spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
			`spec.validation.openAPIV3Schema.properties[metadata].properties[inner].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
		}},
		{"embedded resource with a default in its metadata", withSpecProp("template", apiextensionsv1.JSONSchemaProps{Type: "object", XEmbeddedResource: true,
			Properties: map[string]apiextensionsv1.JSONSchemaProps{"metadata": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", Default: raw(`"x"`)}}}}}}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[template].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`,
		}},
		{"list map keys without list type", withSpecProp("ports", apiextensionsv1.JSONSchemaProps{Type: "array", XListMapKeys: []string{"port"},
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &portItem}}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
		}},
	})
}

var portItem = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"port": {Type: "integer"}}, Required: []string{"port"}}

func TestValidateCELRules(t *testing.T) {
	rule := func(r apiextensionsv1.ValidationRule) crdChange {
		return onSpecSchema(func(s *apiextensionsv1.JSONSchemaProps) { s.XValidations = []apiextensionsv1.ValidationRule{r} })
	}
	tags := func(r apiextensionsv1.ValidationRule, maxItems *int64) crdChange {
		return withSpecProp("tags", apiextensionsv1.JSONSchemaProps{Type: "array", MaxItems: maxItems,
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string",
				XValidations: []apiextensionsv1.ValidationRule{r}}}})
	}
	runCreateCases(t, []createCase{
		{"compiles", rule(apiextensionsv1.ValidationRule{Rule: "self.size > 0"}), nil},
		{"unknown field", rule(apiextensionsv1.ValidationRule{Rule: "self.weight > 0"}), []string{
			"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {\"Rule\":\"self.weight \\u003e 0\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: compilation failed: ERROR: <input>:1:5: undefined field 'weight'\n | self.weight > 0\n | ....^",
		}},
		{"syntax error", rule(apiextensionsv1.ValidationRule{Rule: "self.size >"}), []string{
			"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {\"Rule\":\"self.size \\u003e\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: compilation failed: ERROR: <input>:1:12: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.size >\n | ...........^",
		}},
		{"not a boolean", rule(apiextensionsv1.ValidationRule{Rule: "self.size"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.size","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`,
		}},
		{"empty rule", rule(apiextensionsv1.ValidationRule{Rule: "  "}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified`,
		}},
		{"blank message", rule(apiextensionsv1.ValidationRule{Rule: "true", Message: " "}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].message: Invalid value: " ": must be non-empty if specified`,
		}},
		{"message with a line break", rule(apiextensionsv1.ValidationRule{Rule: "true", Message: "a\nb"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].message: Invalid value: "a\nb": must not contain line breaks`,
		}},
		{"multi-line rule without message", rule(apiextensionsv1.ValidationRule{Rule: "true &&\ntrue"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks`,
		}},
		{"unknown reason", rule(apiextensionsv1.ValidationRule{Rule: "true", Reason: ptr(apiextensionsv1.FieldValueErrorReason("Wrong"))}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: "Wrong": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
		}},
		{"bad field path", rule(apiextensionsv1.ValidationRule{Rule: "true", FieldPath: ".weight"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: ".weight": must be a valid path`,
		}},
		{"good field path", rule(apiextensionsv1.ValidationRule{Rule: "true", FieldPath: ".size"}), nil},
		{"bad message expression", rule(apiextensionsv1.ValidationRule{Rule: "true", MessageExpression: "self.size"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: {"Rule":"true","Message":"","MessageExpression":"self.size","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string`,
		}},
		{"oldSelf transition rule", rule(apiextensionsv1.ValidationRule{Rule: "self.size >= oldSelf.size"}), nil},
		{"optionalOldSelf without oldSelf", rule(apiextensionsv1.ValidationRule{Rule: "true", OptionalOldSelf: ptr(true)}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
		}},
		{"message expression", rule(apiextensionsv1.ValidationRule{Rule: "self.size > 0", MessageExpression: "'widget is too big'"}), nil},
		{"costly message expression", rule(apiextensionsv1.ValidationRule{Rule: "self.size > 0", MessageExpression: "'size is ' + string(self.size)"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
			`spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
		}},
		{"blank message expression", rule(apiextensionsv1.ValidationRule{Rule: "true", MessageExpression: " "}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Required value: messageExpression must be non-empty if specified`,
		}},
		{"blank field path", rule(apiextensionsv1.ValidationRule{Rule: "true", FieldPath: " "}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: " ": must be non-empty if specified`,
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: " ": must be a valid path`,
		}},
		{"field path with a line break", rule(apiextensionsv1.ValidationRule{Rule: "true", FieldPath: ".size\n"}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: ".size\n": must not contain line breaks`,
			`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: ".size\n": must be a valid path`,
		}},
		{"oldSelf in a granular map", withSpecProp("labels", apiextensionsv1.JSONSchemaProps{Type: "object", MaxProperties: ptr(int64(5)),
			AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: ptr(int64(10)),
				XValidations: []apiextensionsv1.ValidationRule{{Rule: "self == oldSelf"}}}}}), nil},
		{"oldSelf in a map list", withSpecProp("ports", apiextensionsv1.JSONSchemaProps{Type: "array", XListType: ptr("map"), XListMapKeys: []string{"port"}, MaxItems: ptr(int64(5)),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Required: []string{"port"},
				Properties:   map[string]apiextensionsv1.JSONSchemaProps{"port": {Type: "integer"}},
				XValidations: []apiextensionsv1.ValidationRule{{Rule: "self.port == oldSelf.port"}}}}}), nil},
		{"oldSelf under an atomic map", withSpecProp("labels", apiextensionsv1.JSONSchemaProps{Type: "object", XMapType: ptr("atomic"),
			Properties: map[string]apiextensionsv1.JSONSchemaProps{"a": {Type: "string", XValidations: []apiextensionsv1.ValidationRule{{Rule: "self == oldSelf"}}}}}), nil},
		{"rule in an embedded resource sees its kind", withSpecProp("template", apiextensionsv1.JSONSchemaProps{Type: "object", XEmbeddedResource: true, XPreserveUnknownFields: ptr(true),
			XValidations: []apiextensionsv1.ValidationRule{{Rule: "self.kind == 'Pod'"}}}), nil},
		{"oldSelf on list items", tags(apiextensionsv1.ValidationRule{Rule: "self == oldSelf"}, ptr(int64(10))), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[tags]`,
		}},
		{"too expensive on an unbounded list", tags(apiextensionsv1.ValidationRule{Rule: "self.matches('^[a-z]+$')"}, nil), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
			`spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
			`spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
		}},
		{"bounded list is cheap", withSpecProp("tags", apiextensionsv1.JSONSchemaProps{Type: "array", MaxItems: ptr(int64(10)),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: ptr(int64(63)),
				XValidations: []apiextensionsv1.ValidationRule{{Rule: "self.matches('^[a-z]+$')"}}}}}), nil},
		{"rule on a schema error is not compiled", onSpecSchema(func(s *apiextensionsv1.JSONSchemaProps) {
			s.XValidations = []apiextensionsv1.ValidationRule{{Rule: "self.weight > 0"}}
			s.Properties["shape"] = apiextensionsv1.JSONSchemaProps{Type: "string", UniqueItems: true}
		}), []string{
			`spec.validation.openAPIV3Schema.properties[spec].properties[shape].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
		}},
		{"rule at the root sees metadata.name", func(c *apiextensionsv1.CustomResourceDefinition) {
			schemaOf(c).XValidations = []apiextensionsv1.ValidationRule{{Rule: "self.metadata.name.startsWith('w')"}}
		}, nil},
		{"rule at the root cannot see labels", func(c *apiextensionsv1.CustomResourceDefinition) {
			schemaOf(c).XValidations = []apiextensionsv1.ValidationRule{{Rule: "has(self.metadata.labels)"}}
		}, []string{
			"spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: {\"Rule\":\"has(self.metadata.labels)\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: compilation failed: ERROR: <input>:1:4: undefined field 'labels'\n | has(self.metadata.labels)\n | ...^",
		}},
	})
}

func TestValidateSelectableFields(t *testing.T) {
	fields := func(paths ...string) crdChange {
		return func(c *apiextensionsv1.CustomResourceDefinition) {
			for _, p := range paths {
				c.Spec.Versions[0].SelectableFields = append(c.Spec.Versions[0].SelectableFields, apiextensionsv1.SelectableField{JSONPath: p})
			}
		}
	}
	runCreateCases(t, []createCase{
		{"valid", fields(".spec.color", ".spec.size"), nil},
		{"unknown path", fields(".spec.weight"), []string{
			`spec.selectableFields[0].jsonPath: Invalid value: ".spec.weight": is an invalid path: does not refer to a valid field`,
		}},
		{"in metadata", fields(".metadata.name"), []string{
			`spec.selectableFields[0].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field`,
		}},
		{"not a scalar", fields(".spec"), []string{
			`spec.selectableFields[0].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
		}},
		{"twice", fields(".spec.color", ".spec.color"), []string{
			`spec.selectableFields[1].jsonPath: Duplicate value: ".spec.color"`,
		}},
		{"empty", fields(""), []string{
			`spec.selectableFields[0].jsonPath: Required value`,
		}},
		{"metadata in the schema", func(c *apiextensionsv1.CustomResourceDefinition) {
			schemaOf(c).Properties["metadata"] = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": {Type: "string"}}}
			fields(".metadata.name")(c)
		}, []string{
			`spec.selectableFields[0].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata`,
		}},
		{"more than eight", func(c *apiextensionsv1.CustomResourceDefinition) {
			var paths []string
			for i := range 9 {
				name := fmt.Sprintf("f%d", i)
				withSpecProp(name, apiextensionsv1.JSONSchemaProps{Type: "string"})(c)
				paths = append(paths, ".spec."+name)
			}
			fields(paths...)(c)
		}, []string{
			`spec.selectableFields: Too many: 9: must have at most 8 items`,
		}},
		{"shared by all versions", func(c *apiextensionsv1.CustomResourceDefinition) {
			fields(".spec.weight")(c)
			v2 := *c.Spec.Versions[0].DeepCopy()
			v2.Name, v2.Storage = "v2", false
			c.Spec.Versions = append(c.Spec.Versions, v2)
		}, []string{
			`spec.selectableFields[0].jsonPath: Invalid value: ".spec.weight": is an invalid path: does not refer to a valid field`,
		}},
	})
}
