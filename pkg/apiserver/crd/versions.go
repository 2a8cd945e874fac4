package crd

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// versions checks spec.versions: each name a DNS-1035 label, each version's own
// schema, subresources, columns and selectable fields, unique names, and exactly
// one storage version (the one objects are written in).
func (r *rules) versions(spec *apiextensions.CustomResourceDefinitionSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	storage := 0
	seen := map[string]bool{}
	unique := true
	for i := range spec.Versions {
		v := &spec.Versions[i]
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		vPath := path.Child("versions").Index(i)
		if msgs := utilvalidation.IsDNS1035Label(v.Name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(vPath.Child("name"), v.Name, strings.Join(msgs, ",")))
		}
		errs = append(errs, r.version(spec, v, vPath)...)
	}
	if !unique {
		errs = append(errs, field.Invalid(path.Child("versions"), spec.Versions, "must contain unique version names"))
	}
	if storage != 1 {
		errs = append(errs, field.Invalid(path.Child("versions"), spec.Versions, "must have exactly one version marked as storage version"))
	}
	// The internal spec.version is the first version's name; kube checks it too,
	// so a bad first name is reported twice, as kube-apiserver does.
	if spec.Version != "" {
		if msgs := utilvalidation.IsDNS1035Label(spec.Version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(path.Child("version"), spec.Version, strings.Join(msgs, ",")))
		}
	}
	return errs
}

// version checks what one version carries for itself.
func (r *rules) version(spec *apiextensions.CustomResourceDefinitionSpec, v *apiextensions.CustomResourceDefinitionVersion, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range deprecationWarningErrors(v.Deprecated, v.DeprecationWarning) {
		errs = append(errs, field.Invalid(path.Child("deprecationWarning"), v.DeprecationWarning, msg))
	}
	sub := subresourcesOf(spec, v.Name)
	statusOn := sub != nil && sub.Status != nil
	errs = append(errs, r.schema(v.Schema, statusOn, r.unchangedSchemas.Has(v.Name), path.Child("schema"))...)
	errs = append(errs, subresourcesErrors(v.Subresources, path.Child("subresources"))...)
	for i := range v.AdditionalPrinterColumns {
		errs = append(errs, columnErrors(&v.AdditionalPrinterColumns[i], path.Child("additionalPrinterColumns").Index(i))...)
	}
	errs = append(errs, r.selectableFieldsOf(v.SelectableFields, v.Schema, v.Name, path)...)
	return errs
}

// deprecationWarningErrors: the warning is sent as an HTTP Warning header, so
// it must be short, printable text, and only on a deprecated version.
func deprecationWarningErrors(deprecated bool, warning *string) []string {
	if warning == nil {
		return nil
	}
	if !deprecated {
		return []string{"can only be set for deprecated versions"}
	}
	var msgs []string
	if len(*warning) > 256 {
		msgs = append(msgs, "must be <= 256 characters long")
	}
	if *warning == "" {
		msgs = append(msgs, "must not be an empty string")
	}
	for i, c := range *warning {
		if !unicode.IsPrint(c) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
		if unicode.IsControl(c) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; control character found at index %d", i))
			break
		}
	}
	if !utf8.ValidString(*warning) {
		msgs = append(msgs, "must only contain printable UTF-8 characters")
	}
	return msgs
}

// storedVersionsErrors: status.storedVersions lists every version objects may
// still be stored in; each must stay in spec.versions until a storage
// migration removes it, and the storage version must be among them.
func storedVersionsErrors(stored []string, versions []apiextensions.CustomResourceDefinitionVersion, path *field.Path) field.ErrorList {
	if len(stored) == 0 {
		return field.ErrorList{field.Invalid(path, stored, "must have at least one stored version")}
	}
	var errs field.ErrorList
	index := map[string]int{}
	for i, v := range stored {
		index[v] = i
	}
	for _, v := range versions {
		_, isStored := index[v.Name]
		if v.Storage && !isStored {
			errs = append(errs, field.Invalid(path, stored, "must have the storage version "+v.Name))
		}
		delete(index, v.Name)
	}
	for i, v := range stored {
		if j, missing := index[v]; missing && j == i {
			errs = append(errs, field.Invalid(path.Index(i), v, fmt.Sprintf("missing from spec.versions; %[1]s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", v)))
		}
	}
	return errs
}
