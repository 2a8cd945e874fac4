package crd

import (
	"errors"
	"fmt"

	celgo "github.com/google/cel-go/cel"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// celNode is where a schema node sits for CEL: whether rules apply from here
// down, and how many times at most the node can occur in one object.
type celNode struct {
	// isResourceRoot: the root and embedded resources get apiVersion, kind and
	// metadata.name/generateName declared for their rules.
	isResourceRoot bool
	// cardinality is nil when unbounded (under a list or map without
	// maxItems/maxProperties).
	cardinality *uint64
}

func rootCELNode() *celNode {
	one := uint64(1)
	return &celNode{isResourceRoot: true, cardinality: &one}
}

// child is the celNode of child, a node directly under parent.
func (n *celNode) child(parent, child *apiextensions.JSONSchemaProps) *celNode {
	if n == nil {
		return nil
	}
	c := &celNode{isResourceRoot: child != nil && child.XEmbeddedResource}
	if n.cardinality == nil {
		return c
	}
	if factor, bounded := elementsPerOccurrence(parent); bounded {
		c.cardinality = new(uint64)
		*c.cardinality = saturatingProduct(*n.cardinality, factor)
	}
	return c
}

// elementsPerOccurrence is how many children one occurrence of s holds at most:
// maxItems for a list, maxProperties for a map, 1 for anything else.
func elementsPerOccurrence(s *apiextensions.JSONSchemaProps) (uint64, bool) {
	var limit *int64
	switch {
	case s.Type == "array":
		limit = s.MaxItems
	case s.Type == "object" && s.AdditionalProperties != nil:
		limit = s.MaxProperties
	default:
		return 1, true
	}
	if limit == nil {
		return 0, false
	}
	return uint64(max(*limit, 0)), true
}

// compileRules compiles the rules of node s with CEL's declarations for s, and
// reports compile errors, costs over the limits, and misuse of oldSelf.
func (w *schemaWalk) compileRules(s *apiextensions.JSONSchemaProps, path *field.Path, ctx nodeContext, cn *celNode) field.ErrorList {
	rulesPath := path.Child("x-kubernetes-validations")
	ss, decl, err := celDeclarations(s, cn.isResourceRoot)
	if err != nil {
		return field.ErrorList{field.InternalError(rulesPath, fmt.Errorf("internal error: failed to construct type information for x-kubernetes-validations rules: %s", err))}
	}
	results, err := cel.Compile(ss, decl, celconfig.PerCallLimit, w.rules.celEnv, w.rules)
	if err != nil {
		return field.ErrorList{field.InternalError(rulesPath, err)}
	}
	var errs field.ErrorList
	for i, res := range results {
		p := rulesPath.Index(i)
		rule := s.XValidations[i]
		errs = append(errs, w.costErrors(w.occurrenceCost(res, cn), "estimated rule cost", p.Child("rule"))...)
		if res.Error != nil {
			if res.Error.Type == apiservercel.ErrorTypeRequired {
				errs = append(errs, field.Required(p.Child("rule"), res.Error.Detail))
			} else {
				errs = append(errs, field.Invalid(p.Child("rule"), rule, res.Error.Detail))
			}
		}
		if res.MessageExpressionError != nil {
			errs = append(errs, field.Invalid(p.Child("messageExpression"), rule, res.MessageExpressionError.Detail))
		} else if res.MessageExpression != nil {
			errs = append(errs, w.costErrors(res.MessageExpressionMaxCost, "estimated messageExpression cost", p.Child("messageExpression"))...)
		}
		if res.UsesOldSelf {
			if at := ctx.oldSelfForbiddenAt; at != nil {
				errs = append(errs, field.Invalid(p.Child("rule"), rule.Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", at)))
			}
		} else if rule.OptionalOldSelf != nil {
			errs = append(errs, field.Invalid(p.Child("optionalOldSelf"), *rule.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
	return errs
}

// celDeclarations converts s to the structural schema and CEL type its rules
// are compiled against.
func celDeclarations(s *apiextensions.JSONSchemaProps, isResourceRoot bool) (*structuralschema.Structural, *apiservercel.DeclType, error) {
	ss, err := structuralschema.NewStructural(s)
	if err != nil {
		return nil, nil, err
	}
	decl := model.SchemaDeclType(ss, isResourceRoot)
	if decl == nil {
		return nil, nil, errors.New("unable to convert structural schema to CEL declarations")
	}
	return ss, decl, nil
}

// RuleEnv makes rules implement cel.EnvLoader: an expression the stored object
// already had compiles in the stored-expressions environment, a new one in the
// environment for new expressions.
func (r *rules) RuleEnv(envSet *environment.EnvSet, expression string) *celgo.Env {
	if r.storedRules.Has(expression) {
		return envSet.StoredExpressionsEnv()
	}
	return envSet.NewExpressionsEnv()
}

// MessageExpressionEnv is RuleEnv for messageExpressions.
func (r *rules) MessageExpressionEnv(envSet *environment.EnvSet, expression string) *celgo.Env {
	if r.storedMessageExpressions.Has(expression) {
		return envSet.StoredExpressionsEnv()
	}
	return envSet.NewExpressionsEnv()
}
