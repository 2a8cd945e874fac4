package crd

import (
	"fmt"
	"slices"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// schemaWalk checks every node of one schema.
type schemaWalk struct {
	rules *rules
	// costs adds up CEL rule costs; nil when the schema is not structural, and
	// then no CEL rule is compiled.
	costs *celCosts
	// perRuleCostLimit is false for a schema an update did not change.
	perRuleCostLimit bool
}

// nodeContext is what a node inherits from where it sits in the schema.
type nodeContext struct {
	root bool
	// allowDefaults is false where a default cannot be applied (in metadata);
	// noDefaultsReason then says where that is.
	allowDefaults    bool
	noDefaultsReason string
	// insideMeta is set inside apiVersion, kind and metadata of a resource.
	insideMeta bool
	// oldSelfForbiddenAt is the highest list or map above whose elements cannot
	// be matched between an old and a new object; rules below it may not use
	// oldSelf. nil when they may.
	oldSelfForbiddenAt *field.Path
}

func (c nodeContext) child() nodeContext {
	c.root = false
	return c
}

func (c nodeContext) withoutDefaults(reason string) nodeContext {
	c.allowDefaults, c.noDefaultsReason = false, reason
	return c
}

func (c nodeContext) forbidOldSelf(at *field.Path) nodeContext {
	if c.oldSelfForbiddenAt == nil {
		c.oldSelfForbiddenAt = at
	}
	return c
}

// nodeErrors keeps CEL errors apart: kube lists them after all schema errors,
// and compiles no rule above a schema error (its message would only confuse).
type nodeErrors struct {
	schema, cel field.ErrorList
}

func (e *nodeErrors) add(o nodeErrors) {
	e.schema = append(e.schema, o.schema...)
	e.cel = append(e.cel, o.cel...)
}

// metaFields are the properties of a resource that hold its type and metadata.
var metaFields = []string{"apiVersion", "kind", "metadata"}

// node checks s and, first, everything below it.
func (w *schemaWalk) node(s *apiextensions.JSONSchemaProps, path *field.Path, ctx nodeContext, cn *celNode) nodeErrors {
	var errs nodeErrors
	if s == nil {
		return errs
	}
	errs.schema = append(errs.schema, unsupportedKeywordErrors(s, path, ctx)...)
	if s.UniqueItems {
		errs.schema = append(errs.schema, field.Forbidden(path.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if ap := s.AdditionalProperties; ap != nil {
		// properties describe a struct, additionalProperties a map; both at once
		// would contradict ignoring unknown fields.
		if len(s.Properties) > 0 && (!ap.Allows || ap.Schema != nil) {
			errs.schema = append(errs.schema, field.Forbidden(path.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		sub := ctx.child()
		if ctx.insideMeta {
			// pruning a metadata map without a value to match is ambiguous
			sub = sub.withoutDefaults("inside additionalProperties applying to object metadata")
		}
		errs.add(w.node(ap.Schema, path.Child("additionalProperties"), sub, cn.child(s, ap.Schema)))
	}
	errs.add(w.properties(s, path, ctx, cn))
	errs.add(w.combinators(s, path, ctx))
	if s.Items != nil {
		sub := ctx.child()
		if s.XListType == nil || *s.XListType != "map" {
			sub = sub.forbidOldSelf(path)
		}
		errs.add(w.node(s.Items.Schema, path.Child("items"), sub, cn.child(s, s.Items.Schema)))
		for i := range s.Items.JSONSchemas {
			errs.add(w.node(&s.Items.JSONSchemas[i], path.Child("items").Index(i), sub, cn.child(s, &s.Items.JSONSchemas[i])))
		}
	}
	for _, k := range sortedKeys(s.Dependencies) {
		errs.add(w.node(s.Dependencies[k].Schema, path.Child("dependencies").Key(k), ctx.child(), nil))
	}
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		errs.schema = append(errs.schema, field.Invalid(path.Child("x-kubernetes-preserve-unknown-fields"), *s.XPreserveUnknownFields, "must be true or undefined"))
	}
	errs.schema = append(errs.schema, mapAndListTypeErrors(s, path)...)
	errs.schema = append(errs.schema, ruleFieldErrors(s, path)...)
	if len(s.XValidations) > 0 && len(errs.schema) == 0 && cn != nil {
		errs.cel = append(errs.cel, w.compileRules(s, path, ctx, cn)...)
	}
	return errs
}

// properties checks each property, in name order so that messages are stable.
func (w *schemaWalk) properties(s *apiextensions.JSONSchemaProps, path *field.Path, ctx nodeContext, cn *celNode) nodeErrors {
	var errs nodeErrors
	for _, name := range sortedKeys(s.Properties) {
		sub := ctx.child()
		if !cel.MapIsCorrelatable(s.XMapType) {
			sub = sub.forbidOldSelf(path)
		}
		if (ctx.root || s.XEmbeddedResource) && slices.Contains(metaFields, name) {
			sub.insideMeta = true
			if ctx.root {
				sub = sub.withoutDefaults(fmt.Sprintf("in top-level %s", name))
			}
		}
		prop := s.Properties[name]
		errs.add(w.node(&prop, path.Child("properties").Key(name), sub, cn.child(s, &prop)))
	}
	return errs
}

// combinators checks not, allOf, oneOf, anyOf and definitions; CEL rules are
// not compiled under them (they never run there).
func (w *schemaWalk) combinators(s *apiextensions.JSONSchemaProps, path *field.Path, ctx nodeContext) nodeErrors {
	var errs nodeErrors
	sub := ctx.child()
	errs.add(w.node(s.Not, path.Child("not"), sub, nil))
	for _, list := range []struct {
		name    string
		schemas []apiextensions.JSONSchemaProps
	}{{"allOf", s.AllOf}, {"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		for i := range list.schemas {
			errs.add(w.node(&list.schemas[i], path.Child(list.name).Index(i), sub, nil))
		}
	}
	for _, k := range sortedKeys(s.Definitions) {
		d := s.Definitions[k]
		errs.add(w.node(&d, path.Child("definitions").Key(k), sub, nil))
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
