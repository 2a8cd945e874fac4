package openapi

import (
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// definitionName is kube's name for a Go type's schema: the package path
// with its domain reversed, then the type name, so that
// k8s.io/api/apps/v1.Deployment is io.k8s.api.apps.v1.Deployment.
func definitionName(t reflect.Type) string {
	path := t.PkgPath()
	host, rest, _ := strings.Cut(path, "/")
	parts := strings.Split(host, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	name := strings.Join(parts, ".")
	if rest != "" {
		name += "." + strings.ReplaceAll(rest, "/", ".")
	}
	return name + "." + t.Name()
}

// jsonField is what a struct field's json tag says.
type jsonField struct {
	name      string
	omitEmpty bool
	inline    bool
	skip      bool
}

func parseJSONTag(f reflect.StructField) jsonField {
	tag, ok := f.Tag.Lookup("json")
	if tag == "-" {
		return jsonField{skip: true}
	}
	name, opts, _ := strings.Cut(tag, ",")
	jf := jsonField{name: name}
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "omitempty", "omitzero":
			jf.omitEmpty = true
		case "inline":
			jf.inline = true
		}
	}
	if f.Anonymous && (name == "" || jf.inline) {
		jf.inline = true
		return jf
	}
	if !ok || name == "" {
		jf.name = f.Name
	}
	if !f.IsExported() {
		jf.skip = true
	}
	return jf
}

// customDefinitionName is kube's name for a custom resource's schema,
// which has no Go package: the group with its parts reversed, then the
// version and kind, so that example.com/v1 Widget is com.example.v1.Widget.
func customDefinitionName(gvk schema.GroupVersionKind) string {
	parts := strings.Split(gvk.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + gvk.Version + "." + gvk.Kind
}
