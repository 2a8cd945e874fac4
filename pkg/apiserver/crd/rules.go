package crd

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/cel/environment"
)

// rules holds what differs between checking a create and an update: kube-apiserver
// holds an update only to what the stored object could already pass, so that a
// CRD accepted by an older server can still be edited.
type rules struct {
	// immutableKindAndScope is set once the stored CRD is Established: custom
	// resources exist under its kind and scope from then on.
	immutableKindAndScope bool
	// storedRules and storedMessageExpressions are the CEL expressions of the
	// stored object. They compile in CEL's stored-expressions environment, which
	// may know functions a new expression may not use yet.
	storedRules, storedMessageExpressions sets.Set[string]
	// unchangedSchemas names the versions whose schema an update left alone; the
	// per-expression cost limit is not applied to them again.
	unchangedSchemas sets.Set[string]
	// overLimitSelectableFields names the versions ("" for the top level) whose
	// selectable fields were stored over the limit of eight and did not change.
	overLimitSelectableFields sets.Set[string]
	// celEnv is CEL's base environment for this server version.
	celEnv *environment.EnvSet
}

func rulesForCreate() *rules {
	return &rules{
		storedRules:               sets.New[string](),
		storedMessageExpressions:  sets.New[string](),
		unchangedSchemas:          sets.New[string](),
		overLimitSelectableFields: sets.New[string](),
		celEnv:                    environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()),
	}
}

func rulesForUpdate(crd, old *apiextensions.CustomResourceDefinition) *rules {
	r := rulesForCreate()
	r.immutableKindAndScope = apiextensions.IsCRDConditionTrue(old, apiextensions.Established)
	forEachSchema(&old.Spec, func(s *apiextensions.JSONSchemaProps) {
		for _, rule := range s.XValidations {
			r.storedRules.Insert(rule.Rule)
			if rule.MessageExpression != "" {
				r.storedMessageExpressions.Insert(rule.MessageExpression)
			}
		}
	})
	for _, v := range crd.Spec.Versions {
		newSchema, err := apiextensions.GetSchemaForVersion(crd, v.Name)
		if err != nil {
			continue
		}
		oldSchema, err := apiextensions.GetSchemaForVersion(old, v.Name)
		if err == nil && apiequality.Semantic.DeepEqual(newSchema, oldSchema) {
			r.unchangedSchemas.Insert(v.Name)
		}
	}
	if len(old.Spec.SelectableFields) > maxSelectableFields && apiequality.Semantic.DeepEqual(crd.Spec.SelectableFields, old.Spec.SelectableFields) {
		r.overLimitSelectableFields.Insert("")
	}
	for _, v := range crd.Spec.Versions {
		for _, o := range old.Spec.Versions {
			if o.Name == v.Name && len(o.SelectableFields) > maxSelectableFields && apiequality.Semantic.DeepEqual(v.SelectableFields, o.SelectableFields) {
				r.overLimitSelectableFields.Insert(v.Name)
			}
		}
	}
	return r
}

// forEachSchema calls fn on every node of every schema in spec.
func forEachSchema(spec *apiextensions.CustomResourceDefinitionSpec, fn func(*apiextensions.JSONSchemaProps)) {
	if spec.Validation != nil {
		walkSchema(spec.Validation.OpenAPIV3Schema, fn)
	}
	for _, v := range spec.Versions {
		if v.Schema != nil {
			walkSchema(v.Schema.OpenAPIV3Schema, fn)
		}
	}
}

// walkSchema calls fn on s and on every schema nested in it.
func walkSchema(s *apiextensions.JSONSchemaProps, fn func(*apiextensions.JSONSchemaProps)) {
	if s == nil {
		return
	}
	fn(s)
	walkSchema(s.Not, fn)
	for _, list := range [][]apiextensions.JSONSchemaProps{s.AllOf, s.OneOf, s.AnyOf} {
		for i := range list {
			walkSchema(&list[i], fn)
		}
	}
	for _, m := range []map[string]apiextensions.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for k := range m {
			child := m[k]
			walkSchema(&child, fn)
		}
	}
	if s.AdditionalProperties != nil {
		walkSchema(s.AdditionalProperties.Schema, fn)
	}
	if s.AdditionalItems != nil {
		walkSchema(s.AdditionalItems.Schema, fn)
	}
	if s.Items != nil {
		walkSchema(s.Items.Schema, fn)
		for i := range s.Items.JSONSchemas {
			walkSchema(&s.Items.JSONSchemas[i], fn)
		}
	}
	for k := range s.Dependencies {
		walkSchema(s.Dependencies[k].Schema, fn)
	}
}

// schemaHas reports whether any node of any schema in spec satisfies pred.
func schemaHas(spec *apiextensions.CustomResourceDefinitionSpec, pred func(*apiextensions.JSONSchemaProps) bool) bool {
	found := false
	forEachSchema(spec, func(s *apiextensions.JSONSchemaProps) {
		found = found || pred(s)
	})
	return found
}
