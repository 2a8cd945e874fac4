package customresource

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
)

// selectableField is one of a CRD version's selectableFields: the key a
// field selector names ("spec.color") and the path to its value.
type selectableField struct {
	key  string
	path *fieldPath
}

// FieldSet is what field selectors match a custom resource against:
// metadata.name, metadata.namespace (for a namespaced resource) and each
// of selectable, keyed by its jsonPath without the leading dot. As in
// kube-apiserver, a selectable field is always in the set: its value is
// printed in Go's default format ("7", "true") and is empty when the
// object does not have it. A selectableField whose jsonPath does not
// parse is left out (the CRD validation rejects it earlier).
func FieldSet(selectable []apiextensionsv1.SelectableField, namespaced bool) func(runtime.Object) fields.Set {
	var sfs []selectableField
	for _, sf := range selectable {
		path, err := compilePath("selectableField", sf.JSONPath)
		if err != nil {
			continue
		}
		sfs = append(sfs, selectableField{key: strings.TrimPrefix(sf.JSONPath, "."), path: path})
	}
	return func(obj runtime.Object) fields.Set {
		m, err := meta.Accessor(obj)
		if err != nil {
			return fields.Set{}
		}
		set := fields.Set{"metadata.name": m.GetName()}
		if namespaced {
			set["metadata.namespace"] = m.GetNamespace()
		}
		u, ok := obj.(runtime.Unstructured)
		if !ok || len(sfs) == 0 {
			return set
		}
		content := u.UnstructuredContent()
		for _, sf := range sfs {
			set[sf.key] = sf.value(content)
		}
		return set
	}
}

// value is the field's value in content as a selector compares it. A
// path that finds several values (kube-apiserver fails the request) gives
// the empty value.
func (sf selectableField) value(content map[string]interface{}) string {
	value, found, more := sf.path.first(content)
	if !found || more || value == nil {
		return ""
	}
	return fmt.Sprint(value)
}
