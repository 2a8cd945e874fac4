package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	p := &historyPrinter{out: &out, seen: map[string]bool{}}
	created := historyEntry{Revision: "12", Time: ago, Manager: "kubectl-create", Changes: []string{"created"}}
	scaled := historyEntry{Revision: "15", Time: ago, Manager: "kubectl", Changes: []string{"spec.replicas: 3 → 5", "metadata.generation: 1 → 2"}}
	deleted := historyEntry{Revision: "16", Manager: "-", Changes: nil}
	// The second print (as -w does) adds only the revision it had not
	// printed, aligned with the first rows.
	if err := p.print(objectHistory{Items: []historyEntry{created, scaled}}); err != nil {
		t.Fatal(err)
	}
	if err := p.print(objectHistory{Items: []historyEntry{created, scaled, deleted}}); err != nil {
		t.Fatal(err)
	}
	want := "REVISION   AGE   MANAGER          CHANGE\n" +
		"12         3m    kubectl-create   created\n" +
		"15         3m    kubectl          spec.replicas: 3 → 5, metadata.generation: 1 → 2\n" +
		"16         <unknown>   -                <none>\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(out.String(), "\t") {
		t.Error("tabs left in the table")
	}
}

func TestHistoryDocumentsAfterTheList(t *testing.T) {
	var out bytes.Buffer
	p := &historyPrinter{output: "json", out: &out, seen: map[string]bool{}}
	one := historyEntry{Revision: "1", Manager: "a", Changes: []string{"created"},
		Object: []byte(`{"kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"a"}]}}`)}
	two := one
	two.Revision, two.Changes = "2", []string{"data.a: 1 → 2"}
	if err := p.print(objectHistory{Items: []historyEntry{one}}); err != nil {
		t.Fatal(err)
	}
	if err := p.print(objectHistory{Items: []historyEntry{one, two}}); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	var list, next map[string]any
	if err := dec.Decode(&list); err != nil || list["kind"] != "List" || len(list["items"].([]any)) != 1 {
		t.Fatalf("first document %v (%v)", list, err)
	}
	if err := dec.Decode(&next); err != nil || next["revision"] != "2" || strings.Contains(fmt.Sprint(next), "managedFields") {
		t.Errorf("second document %v (%v)", next, err)
	}
}
