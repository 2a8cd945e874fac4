package crd

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// schema checks one openAPIV3Schema (of a version, or the top-level one that all
// versions share). statusOn says the status subresource applies to it;
// unchanged says an update left it alone, which lifts the per-rule CEL cost limit.
func (r *rules) schema(v *apiextensions.CustomResourceValidation, statusOn, unchanged bool, path *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	var errs field.ErrorList
	if s := v.OpenAPIV3Schema; s != nil {
		errs = r.rootSchema(s, statusOn, unchanged, path.Child("openAPIV3Schema"))
	}
	// Last, the schema must make a validator for custom resources; the checks
	// above should have caught anything that stops it.
	if len(errs) == 0 {
		if _, _, err := apiservervalidation.NewSchemaValidator(v.OpenAPIV3Schema); err != nil {
			errs = append(errs, field.Invalid(path, "", fmt.Sprintf("error building validator: %v", err)))
		}
	}
	return errs
}

// rootSchema checks the schema s at path: what only the root may (not) have,
// structural-ness and defaults, then every node, then CEL costs for the whole.
func (r *rules) rootSchema(s *apiextensions.JSONSchemaProps, statusOn, unchanged bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if statusOn {
		errs = append(errs, rootWithStatusErrors(s, path)...)
	}
	if s.Nullable {
		errs = append(errs, field.Forbidden(path.Child("nullable"), "nullable cannot be true at the root"))
	}

	// A schema that cannot be made structural also fails the node checks below,
	// which say more; the conversion error is shown only when they find nothing.
	var notStructural field.ErrorList
	var costs *celCosts
	if ss, err := structuralschema.NewStructural(s); err != nil {
		notStructural = field.ErrorList{field.Invalid(path, "", err.Error())}
	} else {
		structErrs := structuralschema.ValidateStructural(path, ss)
		if len(structErrs) == 0 {
			structErrs = defaultsErrors(ss, path)
		}
		errs = append(errs, structErrs...)
		if len(structErrs) == 0 {
			// CEL rules are compiled only against a sound structural schema.
			costs = &celCosts{}
		}
	}

	w := &schemaWalk{rules: r, costs: costs, perRuleCostLimit: !unchanged}
	var rootCEL *celNode
	if costs != nil {
		rootCEL = rootCELNode()
	}
	nodeErrs := w.node(s, path, nodeContext{root: true, allowDefaults: true}, rootCEL)
	errs = append(errs, nodeErrs.schema...)
	errs = append(errs, nodeErrs.cel...)
	if len(errs) == 0 {
		errs = append(errs, notStructural...)
	}
	if costs != nil {
		errs = append(errs, costs.totalErrors(path)...)
	}
	return errs
}

// defaultsErrors: every default must be valid against its schema and already
// pruned (kube applies defaults after pruning, so an unknown field in a default
// would silently vanish).
func defaultsErrors(ss *structuralschema.Structural, path *field.Path) field.ErrorList {
	// Defaults are checked in memory, with CEL rules of bounded cost; there is
	// nothing to cancel.
	errs, err := structuraldefaulting.ValidateDefaults(context.Background(), path, ss, true, true)
	if err != nil {
		return field.ErrorList{field.Invalid(path, "", err.Error())}
	}
	return errs
}

// rootFieldsWithStatus are the JSONSchemaProps fields the root may use when the
// status subresource is on: /status validates with properties["status"] alone,
// so nothing at the root may constrain status from outside it.
var rootFieldsWithStatus = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// rootWithStatusErrors reports the first field set at the root that
// rootFieldsWithStatus does not allow, and a root type other than object.
func rootWithStatusErrors(s *apiextensions.JSONSchemaProps, path *field.Path) field.ErrorList {
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).IsZero() {
			continue
		}
		name := v.Type().Field(i).Name
		if name == "Type" {
			if s.Type != "object" {
				return field.ErrorList{field.Invalid(path.Child("type"), s.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
			continue
		}
		if !slices.Contains(rootFieldsWithStatus, name) {
			return field.ErrorList{field.Invalid(path, *s, fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", rootFieldsWithStatus))}
		}
	}
	return nil
}
