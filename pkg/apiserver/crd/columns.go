package crd

import (
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The printer column types and formats kubectl knows how to print, sorted as
// kube lists them in its messages.
var (
	columnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	columnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// columnErrors checks one additionalPrinterColumns entry. The field name in the
// path is "JSONPath", as kube-apiserver spells it.
func columnErrors(col *apiextensions.CustomResourceColumnDefinition, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if col.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	}
	typesMsg := "must be one of " + strings.Join(columnTypes, ",")
	switch {
	case col.Type == "":
		errs = append(errs, field.Required(path.Child("type"), typesMsg))
	case !slices.Contains(columnTypes, col.Type):
		errs = append(errs, field.Invalid(path.Child("type"), col.Type, typesMsg))
	}
	if col.Format != "" && !slices.Contains(columnFormats, col.Format) {
		errs = append(errs, field.Invalid(path.Child("format"), col.Format, "must be one of "+strings.Join(columnFormats, ",")))
	}
	if col.JSONPath == "" {
		errs = append(errs, field.Required(path.Child("JSONPath"), ""))
	} else {
		errs = append(errs, simpleJSONPathErrors(col.JSONPath, path.Child("JSONPath"))...)
	}
	return errs
}

// subresourcesErrors checks the scale subresource's paths: replicas are read
// from under .spec and .status, the label selector from under either.
func subresourcesErrors(sub *apiextensions.CustomResourceSubresources, path *field.Path) field.ErrorList {
	if sub == nil || sub.Scale == nil {
		return nil
	}
	var errs field.ErrorList
	scalePath := func(value, name, under string) {
		p := path.Child("scale." + name)
		if value == "" {
			errs = append(errs, field.Required(p, ""))
			return
		}
		if e := simpleJSONPathErrors(value, p); len(e) > 0 {
			errs = append(errs, e...)
		} else if !strings.HasPrefix(value, under+".") {
			errs = append(errs, field.Invalid(p, value, "should be a json path under "+under))
		}
	}
	scalePath(sub.Scale.SpecReplicasPath, "specReplicasPath", ".spec")
	scalePath(sub.Scale.StatusReplicasPath, "statusReplicasPath", ".status")
	if sel := sub.Scale.LabelSelectorPath; sel != nil && *sel != "" {
		p := path.Child("scale.labelSelectorPath")
		if e := simpleJSONPathErrors(*sel, p); len(e) > 0 {
			errs = append(errs, e...)
		} else if !strings.HasPrefix(*sel, ".spec.") && !strings.HasPrefix(*sel, ".status.") {
			errs = append(errs, field.Invalid(p, sel, "should be a json path under either .spec or .status"))
		}
	}
	return errs
}

// simpleJSONPathErrors: column and scale paths are plain dot paths such as
// .spec.replicas, not full JSONPath templates.
func simpleJSONPathErrors(s string, path *field.Path) field.ErrorList {
	switch {
	case s == "":
		return field.ErrorList{field.Invalid(path, s, "must not be empty")}
	case s[0] != '.':
		return field.ErrorList{field.Invalid(path, s, "must be a simple json path starting with .")}
	}
	return nil
}
