package crd

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// otherCRD is a CRD in widgets' group with the given names block.
func otherCRD(plural, names string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
` + names + `  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`
}

// TestNamesConflict: a CRD whose kind or short name another CRD of its
// group holds gets NamesAccepted=False with kube's reason and message,
// is not Established and not served; once the holder is gone, it is.
func TestNamesConflict(t *testing.T) {
	t.Parallel()
	s := start(t)
	createCRD(t, s, widgetCRD)

	okIn(t, s, otherCRD("wodgets", "    plural: wodgets\n    singular: wodget\n    kind: Wodget\n    shortNames: [wg]\n"), "create", "-f", "-")
	// listKind is given: a defaulted one (WidgetList) would conflict too,
	// and kube reports the last conflict it finds (ListKindConflict).
	okIn(t, s, otherCRD("wudgets", "    plural: wudgets\n    singular: wudget\n    kind: Widget\n    listKind: WudgetList\n"), "create", "-f", "-")

	expectConditions(t, s, "wodgets.example.com",
		`{"kind":"Wodget","listKind":"WodgetList","plural":"wodgets","singular":"wodget"}`,
		`NamesAccepted=False ShortNamesConflict "wg" is already in use; Established=False NotAccepted not all names are accepted`)
	expectConditions(t, s, "wudgets.example.com",
		`{"kind":"","listKind":"WudgetList","plural":"wudgets","singular":"wudget"}`,
		`NamesAccepted=False KindConflict "Widget" is already in use; Established=False NotAccepted not all names are accepted`)

	r := curl(t, s, "GET", "/apis/example.com/v1", "")
	if strings.Contains(r.body, "wodgets") || strings.Contains(r.body, "wudgets") {
		t.Errorf("conflicting CRDs are served:\n%s", r.body)
	}
	expect(t, s, "", 1, "", "error: the server doesn't have a resource type \"wodgets\"\n", "get", "wodgets")
	res := kubectl(s, "", "wait", "--for=condition=Established", "--timeout=1s", "crd/wodgets.example.com")
	if res.ExitCode == 0 {
		t.Errorf("kubectl wait for Established on a conflicting CRD succeeded: %s", res)
	}
	// The short name still means widgets.
	expect(t, s, "", 0, "", "No resources found in default namespace.\n", "get", "wg")

	// With widgets gone, the names are free: both are accepted and served.
	ok(t, s, "delete", "crd", "widgets.example.com")
	for _, name := range []string{"wodgets.example.com", "wudgets.example.com"} {
		eventually(t, 10*time.Second, func() string {
			res := kubectl(s, "", "get", "crd", name, "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`)
			if res.Stdout != "True" {
				return name + " is not Established after the widgets CRD went: " + res.String()
			}
			return ""
		})
	}
	// A fresh discovery cache: kubectl's own still maps wg to widgets.
	cache := "--cache-dir=" + t.TempDir()
	createIn(t, s, "apiVersion: example.com/v1\nkind: Wodget\nmetadata:\n  name: wo\n", "wodget.example.com/wo created\n")
	expectAged(t, s, "NAME   AGE\nwo     0s\n", "get", "wg", cache)
	expect(t, s, "", 0, "", "No resources found in default namespace.\n", "get", "wudgets", cache)
}

// expectConditions compares a CRD's acceptedNames (JSON) and its
// conditions ("TYPE=STATUS REASON MESSAGE; ...") once the controller has
// set NamesAccepted.
func expectConditions(t *testing.T, s *harness.Server, name, names, conditions string) {
	t.Helper()
	eventually(t, 10*time.Second, func() string {
		res := kubectl(s, "", "get", "crd", name, "-o", "jsonpath={.status}")
		var st struct {
			AcceptedNames json.RawMessage `json:"acceptedNames"`
			Conditions    []struct{ Type, Status, Reason, Message string }
		}
		if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
			return res.String()
		}
		var got []string
		for _, c := range st.Conditions {
			got = append(got, c.Type+"="+c.Status+" "+c.Reason+" "+c.Message)
		}
		if g := strings.Join(got, "; "); string(st.AcceptedNames) != names || g != conditions {
			return "CRD " + name + ":\n got names " + string(st.AcceptedNames) + "\n     conditions " + g + "\nwant names " + names + "\n     conditions " + conditions
		}
		return ""
	})
}
