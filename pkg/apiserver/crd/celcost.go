package crd

import (
	"fmt"
	"math"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The CEL cost limits kube-apiserver sets on x-kubernetes-validations: per
// expression, and for all rules of one schema together.
const (
	ruleCostLimit   = 10_000_000
	schemaCostLimit = 100_000_000
)

func saturatingProduct(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

// occurrenceCost is a rule's worst-case cost over every occurrence of its node.
func (w *schemaWalk) occurrenceCost(res cel.CompilationResult, cn *celNode) uint64 {
	if cn.cardinality != nil {
		return saturatingProduct(res.MaxCost, *cn.cardinality)
	}
	return saturatingProduct(res.MaxCost, res.MaxCardinality)
}

// costErrors counts cost towards the schema's total and reports it when it is
// over the per-expression limit.
func (w *schemaWalk) costErrors(cost uint64, what string, path *field.Path) field.ErrorList {
	w.costs.observe(path, cost)
	if !w.perRuleCostLimit || cost <= ruleCostLimit {
		return nil
	}
	return field.ErrorList{field.Forbidden(path, costMessage(what, cost, ruleCostLimit))}
}

// costMessage says by how much cost is over limit.
func costMessage(what string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var by string
	switch {
	case factor > 100:
		by = "more than 100x"
	case factor < 1.5:
		by = fmt.Sprintf("%fx", factor)
	default:
		by = fmt.Sprintf("%.1fx", factor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, by)
}

// celCosts adds up the costs of all rules of one schema and keeps the four
// most expensive (of those over 1% of the limit) to blame when over it.
type celCosts struct {
	total   uint64
	largest []ruleCost
}

type ruleCost struct {
	path *field.Path
	cost uint64
}

func (c *celCosts) observe(path *field.Path, cost uint64) {
	c.total = saturatingSum(c.total, cost)
	if cost < schemaCostLimit/100 {
		return
	}
	c.largest = append(c.largest, ruleCost{path, cost})
	sort.SliceStable(c.largest, func(i, j int) bool { return c.largest[i].cost > c.largest[j].cost })
	if len(c.largest) > 4 {
		c.largest = c.largest[:4]
	}
}

func (c *celCosts) totalErrors(schemaPath *field.Path) field.ErrorList {
	if c.total <= schemaCostLimit {
		return nil
	}
	var errs field.ErrorList
	for _, r := range c.largest {
		errs = append(errs, field.Forbidden(r.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
	}
	return append(errs, field.Forbidden(schemaPath, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, schemaCostLimit)))
}

func saturatingSum(a, b uint64) uint64 {
	if math.MaxUint64-a < b {
		return math.MaxUint64
	}
	return a + b
}
