package cli

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"
)

// waitKind is what one --for flag waits for.
type waitKind int

const (
	waitForCreate waitKind = iota
	waitForDelete
	waitForCondition
	waitForJSONPath
)

// waitCondition is one parsed --for value.
type waitCondition struct {
	kind waitKind
	// condition: the type and wanted status (compared case-insensitively).
	condType, condStatus string
	// jsonpath: the expression as given (relaxed) and the wanted value;
	// no value means any value will do.
	path     *jsonpath.JSONPath
	value    string
	anyValue bool
}

// parseWaitConditions reads every --for value in kubectl's grammar: create,
// delete, condition=TYPE[=STATUS] (STATUS defaults to true) and
// jsonpath=EXPR[=VALUE].
func parseWaitConditions(specs []string) ([]waitCondition, error) {
	var out []waitCondition
	for _, spec := range specs {
		c, err := parseWaitCondition(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("unrecognized condition: %q", specs)
	}
	return out, nil
}

func parseWaitCondition(spec string) (waitCondition, error) {
	switch lower := strings.ToLower(spec); {
	case lower == "create":
		return waitCondition{kind: waitForCreate}, nil
	case lower == "delete":
		return waitCondition{kind: waitForDelete}, nil
	case strings.HasPrefix(spec, "condition="):
		name := strings.TrimPrefix(spec, "condition=")
		status := "true"
		if i := strings.Index(name, "="); i >= 0 {
			name, status = name[:i], name[i+1:]
		}
		return waitCondition{kind: waitForCondition, condType: name, condStatus: status}, nil
	case strings.HasPrefix(spec, "jsonpath="):
		return parseJSONPathCondition(strings.TrimPrefix(spec, "jsonpath="))
	}
	return waitCondition{}, fmt.Errorf("unrecognized condition: %q", spec)
}

// parseJSONPathCondition reads EXPR[=VALUE]; "==" inside EXPR (a filter)
// does not split it.
func parseJSONPathCondition(input string) (waitCondition, error) {
	parts := splitOnSingleEquals(input)
	if len(parts) > 2 {
		return waitCondition{}, fmt.Errorf("jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or --for=jsonpath='{.status.readyReplicas}'")
	}
	expr, err := relaxedJSONPathExpression(parts[0])
	if err != nil {
		return waitCondition{}, err
	}
	c := waitCondition{kind: waitForJSONPath, anyValue: len(parts) == 1}
	if len(parts) == 2 {
		c.value = strings.Trim(parts[1], `'"`)
		if c.value == "" {
			return waitCondition{}, errors.New("jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3")
		}
	}
	if expr == "" {
		return waitCondition{}, errors.New("jsonpath expression cannot be empty")
	}
	c.path = jsonpath.New("wait").AllowMissingKeys(true)
	if err := c.path.Parse(expr); err != nil {
		return waitCondition{}, err
	}
	return c, nil
}

// splitOnSingleEquals splits at each "=" that is not part of "==".
func splitOnSingleEquals(s string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '=' && i+1 < len(s) && s[i+1] == '=':
			cur.WriteString("==")
			i++
		case s[i] == '=':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(out, cur.String())
}

// met reports whether obj satisfies a condition or jsonpath wait.
func (c waitCondition) met(obj *unstructured.Unstructured) (bool, error) {
	if c.kind == waitForJSONPath {
		return c.jsonPathMet(obj)
	}
	return c.conditionMet(obj), nil
}

// conditionMet looks for the status condition of the wanted type. A
// condition older than the object's generation (by its own or the status's
// observedGeneration) does not count yet.
func (c waitCondition) conditionMet(obj *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, raw := range conds {
		cond, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		typ, found, err := unstructured.NestedString(cond, "type")
		if !found || err != nil || !strings.EqualFold(typ, c.condType) {
			continue
		}
		status, found, err := unstructured.NestedString(cond, "status")
		if !found || err != nil {
			continue
		}
		if gen, ok, _ := unstructured.NestedInt64(obj.Object, "metadata", "generation"); ok {
			if observed, ok := observedGeneration(obj, cond); ok && observed < gen {
				return false
			}
		}
		return strings.EqualFold(status, c.condStatus)
	}
	return false
}

func observedGeneration(obj *unstructured.Unstructured, cond map[string]any) (int64, bool) {
	if g, ok, _ := unstructured.NestedInt64(cond, "observedGeneration"); ok {
		return g, true
	}
	g, ok, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
	return g, ok
}

// jsonPathMet evaluates the expression; it must lead to exactly one
// scalar, compared as text (trimmed) with the wanted value.
func (c waitCondition) jsonPathMet(obj *unstructured.Unstructured) (bool, error) {
	results, err := c.path.FindResults(obj.UnstructuredContent())
	if err != nil {
		return false, err
	}
	if len(results) == 0 || len(results[0]) == 0 {
		return false, nil
	}
	if len(results) > 1 {
		return false, errors.New("given jsonpath expression matches more than one list")
	}
	if len(results[0]) > 1 {
		return false, errors.New("given jsonpath expression matches more than one value")
	}
	if c.anyValue {
		return true, nil
	}
	return jsonPathValueEquals(results[0][0], c.value)
}

func jsonPathValueEquals(v reflect.Value, want string) (bool, error) {
	switch v.Interface().(type) {
	case map[string]any, []any:
		return false, errors.New("jsonpath leads to a nested object or list which is not supported")
	}
	return strings.TrimSpace(fmt.Sprintf("%v", v.Interface())) == strings.TrimSpace(want), nil
}
