package openapi

import (
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// swaggerDoc is implemented by every k8s.io/api and apimachinery type: the
// "" key documents the type, the others its fields by json name.
type swaggerDoc interface {
	SwaggerDoc() map[string]string
}

// definitions builds schemas for Go types by reflection, one definition per
// named struct (and per special type), referring to each other by name.
type definitions struct {
	// refPrefix is "#/definitions/" for OpenAPI v2 and
	// "#/components/schemas/" for v3.
	refPrefix string
	// v3 wraps described references in allOf, as kube-apiserver's v3
	// documents do, and spells int-or-string the v3 way.
	v3   bool
	defs map[string]spec.Schema
	// gvks are the group/version/kinds each definition is served as.
	gvks map[string][]schema.GroupVersionKind
}

func newDefinitions(v3 bool) *definitions {
	d := &definitions{refPrefix: "#/definitions/", v3: v3, defs: map[string]spec.Schema{}, gvks: map[string][]schema.GroupVersionKind{}}
	if v3 {
		d.refPrefix = "#/components/schemas/"
	}
	return d
}

// addKind adds the definition of a served kind and marks it with its
// x-kubernetes-group-version-kind.
func (d *definitions) addKind(t reflect.Type, gvk schema.GroupVersionKind) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := d.named(t)
	d.mark(name, gvk)
	return name
}

// mark records that the named definition is served as gvk.
func (d *definitions) mark(name string, gvk schema.GroupVersionKind) {
	for _, have := range d.gvks[name] {
		if have == gvk {
			return
		}
	}
	d.gvks[name] = append(d.gvks[name], gvk)
}

// ref is a reference to the named definition.
func (d *definitions) ref(name string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(d.refPrefix + name)}}
}

// named makes sure t has a definition and returns its name.
func (d *definitions) named(t reflect.Type) string {
	name := definitionName(t)
	if _, done := d.defs[name]; done {
		return name
	}
	if s, ok := special(t, d.v3); ok {
		d.defs[name] = s
		return name
	}
	d.defs[name] = spec.Schema{} // placeholder: stops recursion
	d.defs[name] = d.structSchema(t)
	return name
}

// structSchema describes a struct: its properties, the required ones
// (fields without omitempty) and its description.
func (d *definitions) structSchema(t reflect.Type) spec.Schema {
	s := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{}}}
	s.Description = docOf(t)[""]
	d.addFields(&s, t)
	if len(s.Properties) == 0 {
		s.Properties = nil
	}
	return s
}

func (d *definitions) addFields(s *spec.Schema, t reflect.Type) {
	docs := docOf(t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		jf := parseJSONTag(f)
		switch {
		case jf.skip:
			continue
		case jf.inline:
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			d.addFields(s, ft)
			continue
		}
		prop := d.property(f.Type, docs[jf.name])
		if strategy := f.Tag.Get("patchStrategy"); strategy != "" {
			prop.AddExtension("x-kubernetes-patch-strategy", strategy)
		}
		if key := f.Tag.Get("patchMergeKey"); key != "" {
			prop.AddExtension("x-kubernetes-patch-merge-key", key)
		}
		s.Properties[jf.name] = prop
		if !jf.omitEmpty {
			s.Required = append(s.Required, jf.name)
		}
	}
}

// property is the schema of one field: a reference for named structs and
// special types, inline for scalars, slices and maps.
func (d *definitions) property(t reflect.Type, description string) spec.Schema {
	return d.describe(d.typeSchema(t), description)
}

// describe gives s a description; v3 puts a described reference in an
// allOf, since OpenAPI 3.0 ignores whatever sits beside a $ref.
func (d *definitions) describe(s spec.Schema, description string) spec.Schema {
	if description == "" {
		return s
	}
	if s.Ref.String() != "" && d.v3 {
		return spec.Schema{SchemaProps: spec.SchemaProps{AllOf: []spec.Schema{s}, Description: description}}
	}
	s.Description = description
	return s
}

func (d *definitions) typeSchema(t reflect.Type) spec.Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if _, ok := special(t, d.v3); ok || (t.Kind() == reflect.Struct && t.Name() != "") {
		return d.ref(d.named(t))
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return scalar("string", "byte")
		}
		items := d.typeSchema(t.Elem())
		return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &items}}}
	case reflect.Map:
		values := d.typeSchema(t.Elem())
		return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"},
			AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: &values}}}
	case reflect.Struct: // anonymous struct
		return d.structSchema(t)
	case reflect.Interface:
		return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	}
	return scalarOf(t)
}

func scalar(typ, format string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{typ}, Format: format}}
}

func scalarOf(t reflect.Type) spec.Schema {
	switch t.Kind() {
	case reflect.String:
		return scalar("string", "")
	case reflect.Bool:
		return scalar("boolean", "")
	case reflect.Int32, reflect.Uint32, reflect.Int16, reflect.Uint16, reflect.Int8, reflect.Uint8:
		return scalar("integer", "int32")
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		return scalar("integer", "int64")
	case reflect.Float32, reflect.Float64:
		return scalar("number", "double")
	}
	panic(fmt.Sprintf("openapi: no schema for Go kind %s (%s)", t.Kind(), t))
}

// docOf returns a type's SwaggerDoc, or nothing for types without one.
func docOf(t reflect.Type) map[string]string {
	if doc, ok := reflect.New(t).Elem().Interface().(swaggerDoc); ok {
		return doc.SwaggerDoc()
	}
	return map[string]string{}
}

// finish returns the definitions with their group-version-kind extensions.
func (d *definitions) finish() map[string]spec.Schema {
	out := make(map[string]spec.Schema, len(d.defs))
	for name, s := range d.defs {
		if gvks := d.gvks[name]; len(gvks) > 0 {
			sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
			ext := make([]interface{}, 0, len(gvks))
			for _, g := range gvks {
				ext = append(ext, map[string]interface{}{"group": g.Group, "version": g.Version, "kind": g.Kind})
			}
			s.AddExtension("x-kubernetes-group-version-kind", ext)
		}
		out[name] = s
	}
	return out
}
