package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestHistoryPath(t *testing.T) {
	deploy := ResourceRef{Name: "web", Mapping: &meta.RESTMapping{
		Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Scope: meta.RESTScopeNamespace}}
	node := ResourceRef{Name: "n1", Mapping: &meta.RESTMapping{
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, Scope: meta.RESTScopeRoot}}
	if got := historyPath(deploy, "prod"); got != "/miniapi/v1/history/apps/v1/deployments/prod/web" {
		t.Errorf("deployment: %s", got)
	}
	if got := historyPath(node, "prod"); got != "/miniapi/v1/history/core/v1/nodes/-/n1" {
		t.Errorf("node: %s", got)
	}
}

func TestPrintHistoryTable(t *testing.T) {
	ago := time.Now().Add(-3 * time.Minute).UTC().Format(time.RFC3339)
	var out bytes.Buffer
	err := printHistoryTable(&out, objectHistory{Items: []historyEntry{
		{Revision: "12", Time: ago, Manager: "kubectl-create", Changes: []string{"created"}},
		{Revision: "15", Time: ago, Manager: "kubectl", Changes: []string{"spec.replicas: 3 → 5", "metadata.generation: 1 → 2"}},
		{Revision: "16", Manager: "-", Changes: nil},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := "REVISION   AGE         MANAGER          CHANGE\n" +
		"12         3m          kubectl-create   created\n" +
		"15         3m          kubectl          spec.replicas: 3 → 5, metadata.generation: 1 → 2\n" +
		"16         <unknown>   -                <none>\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(out.String(), "\t") {
		t.Error("tabs left in the table")
	}
}
