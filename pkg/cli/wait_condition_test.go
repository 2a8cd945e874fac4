package cli

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestParseWaitConditions(t *testing.T) {
	cases := []struct {
		spec       string
		kind       waitKind
		condType   string
		condStatus string
		value      string
		anyValue   bool
	}{
		{spec: "delete", kind: waitForDelete},
		{spec: "Create", kind: waitForCreate},
		{spec: "condition=Available", kind: waitForCondition, condType: "Available", condStatus: "true"},
		{spec: "condition=Ready=false", kind: waitForCondition, condType: "Ready", condStatus: "false"},
		{spec: "condition=a=b=c", kind: waitForCondition, condType: "a", condStatus: "b=c"},
		{spec: "jsonpath={.status.phase}=Running", kind: waitForJSONPath, value: "Running"},
		{spec: "jsonpath={.status.phase}='Running'", kind: waitForJSONPath, value: "Running"},
		{spec: "jsonpath=.status.readyReplicas", kind: waitForJSONPath, anyValue: true},
		{spec: `jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`, kind: waitForJSONPath, value: "True"},
	}
	for _, c := range cases {
		got, err := parseWaitConditions([]string{c.spec})
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		g := got[0]
		if g.kind != c.kind || g.condType != c.condType || g.condStatus != c.condStatus || g.value != c.value || g.anyValue != c.anyValue {
			t.Errorf("%s: got %+v", c.spec, g)
		}
	}
}

func TestParseWaitConditionErrors(t *testing.T) {
	cases := map[string]string{
		"bogus":                         `unrecognized condition: "bogus"`,
		"jsonpath=":                     "jsonpath expression cannot be empty",
		"jsonpath={.a}=":                "jsonpath wait has to have a value after equal sign",
		"jsonpath={.a}=1=2":             "jsonpath wait format must be",
		"jsonpath={.a":                  "unexpected path string",
		"jsonpath={.a[?(@.b==\"c\")]}=": "has to have a value",
	}
	for spec, want := range cases {
		_, err := parseWaitConditions([]string{spec})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", spec, err, want)
		}
	}
	if _, err := parseWaitConditions(nil); err == nil || err.Error() != "unrecognized condition: []" {
		t.Errorf("no --for: got %v", err)
	}
}

func TestSplitOnSingleEquals(t *testing.T) {
	got := splitOnSingleEquals("a.b.c====d.e.f===g.h.i===")
	want := []string{"a.b.c====d.e.f==", "g.h.i==", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func deployment(generation, observed int64, conds ...map[string]any) *unstructured.Unstructured {
	list := make([]any, len(conds))
	for i, c := range conds {
		list[i] = c
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "web", "generation": generation},
		"status": map[string]any{
			"observedGeneration": observed,
			"replicas":           int64(2),
			"conditions":         list,
			"phase":              " Running ",
		},
	}}
}

func mustCondition(t *testing.T, spec string) waitCondition {
	t.Helper()
	c, err := parseWaitCondition(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConditionMet(t *testing.T) {
	available := map[string]any{"type": "Available", "status": "True"}
	cases := []struct {
		spec string
		obj  *unstructured.Unstructured
		want bool
	}{
		{"condition=Available", deployment(1, 1, available), true},
		{"condition=available=TRUE", deployment(1, 1, available), true},
		{"condition=Available=false", deployment(1, 1, available), false},
		{"condition=Progressing", deployment(1, 1, available), false},
		// Not yet observed: the condition describes an older spec.
		{"condition=Available", deployment(2, 1, available), false},
		// A condition's own observedGeneration wins over the status's.
		{"condition=Available", deployment(2, 1, map[string]any{"type": "Available", "status": "True", "observedGeneration": int64(2)}), true},
		{"condition=Available", &unstructured.Unstructured{Object: map[string]any{}}, false},
	}
	for _, c := range cases {
		got, err := mustCondition(t, c.spec).met(c.obj)
		if err != nil || got != c.want {
			t.Errorf("%s: got %v, %v; want %v", c.spec, got, err, c.want)
		}
	}
}

func TestJSONPathMet(t *testing.T) {
	obj := deployment(1, 1, map[string]any{"type": "Ready", "status": "True"}, map[string]any{"type": "Other", "status": "False"})
	cases := []struct {
		spec    string
		want    bool
		wantErr string
	}{
		{spec: "jsonpath={.status.replicas}=2", want: true},
		{spec: "jsonpath={.status.replicas}=3"},
		{spec: "jsonpath={.status.phase}=Running", want: true},
		{spec: "jsonpath={.status.replicas}", want: true},
		{spec: "jsonpath={.status.missing}"},
		{spec: `jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`, want: true},
		{spec: "jsonpath={.status.conditions}=x", wantErr: "jsonpath leads to a nested object or list which is not supported"},
		{spec: "jsonpath={.status.conditions[*].type}=Ready", wantErr: "given jsonpath expression matches more than one value"},
	}
	for _, c := range cases {
		got, err := mustCondition(t, c.spec).met(obj)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%s: got error %v, want %q", c.spec, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %v, %v; want %v", c.spec, got, err, c.want)
		}
	}
}
