package crd

import (
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// namesRequired: spec.names must give all four names (SetDefaults fills
// singular and listKind from kind); status.acceptedNames need not.
func namesRequired(names *apiextensions.CustomResourceDefinitionNames, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, n := range []struct{ value, field string }{
		{names.Plural, "plural"}, {names.Singular, "singular"}, {names.Kind, "kind"}, {names.ListKind, "listKind"},
	} {
		if n.value == "" {
			errs = append(errs, field.Required(path.Child(n.field), ""))
		}
	}
	return errs
}

// namesErrors: resource names, short names and categories appear in URLs and on
// kubectl's command line, so they are lower-case DNS-1035 labels; kinds are the
// same but may mix case. Kind and listKind must differ, or a decoder could not
// tell an object from a list.
func namesErrors(names *apiextensions.CustomResourceDefinitionNames, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	label := func(value string, p *field.Path) {
		if msgs := utilvalidation.IsDNS1035Label(value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p, value, strings.Join(msgs, ",")))
		}
	}
	kindLike := func(value string, p *field.Path) {
		if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(value)); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p, value, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
		}
	}
	if names.Plural != "" {
		label(names.Plural, path.Child("plural"))
	}
	if names.Singular != "" {
		label(names.Singular, path.Child("singular"))
	}
	if names.Kind != "" {
		kindLike(names.Kind, path.Child("kind"))
	}
	if names.ListKind != "" {
		kindLike(names.ListKind, path.Child("listKind"))
	}
	for i, s := range names.ShortNames {
		label(s, path.Child("shortNames").Index(i))
	}
	if names.Kind != "" && names.Kind == names.ListKind {
		errs = append(errs, field.Invalid(path.Child("listKind"), names.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range names.Categories {
		label(c, path.Child("categories").Index(i))
	}
	return errs
}
