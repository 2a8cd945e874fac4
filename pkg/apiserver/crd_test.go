package apiserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// widgetCRD is the reference's Widget CRD (kinds-crd-ssa-1.37.md §23),
// with a transition rule added on spec.color.
const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wg"]},
 "versions":[{"name":"v1","served":true,"storage":true,
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object",
    "x-kubernetes-validations":[{"rule":"self.size <= 5 || self.color == 'red'","message":"big widgets must be red"}],
    "properties":{
     "size":{"type":"integer","minimum":1,"maximum":10,"default":1},
     "color":{"type":"string","enum":["red","blue"],
      "x-kubernetes-validations":[{"rule":"self == oldSelf || oldSelf != 'red'","messageExpression":"'a red widget stays red, not ' + self"}]}}},
   "status":{"type":"object","properties":{"size":{"type":"integer"}}}}}},
  "subresources":{"status":{},"scale":{"specReplicasPath":".spec.size","statusReplicasPath":".status.size"}},
  "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"},{"name":"Color","type":"string","jsonPath":".spec.color"}]}]}}`

const widgets = "/apis/example.com/v1/namespaces/default/widgets"

// createCRD creates a CRD and waits until its resources answer.
func createCRD(t testing.TB, ts *testServer, body, listPath string) {
	t.Helper()
	if code, _, out := ts.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", body); code != 201 {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitFor(t, "the CRD's resources to be served", func() bool {
		code, _, _ := ts.do(t, "GET", listPath, "", "")
		return code == 200
	})
}

func jsonField(t testing.TB, body string, path ...string) interface{} {
	t.Helper()
	var v interface{}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	for _, p := range path {
		m, ok := v.(map[string]interface{})
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func TestCRDIsEstablishedAndServed(t *testing.T) {
	ts := startTestServer(t)
	createCRD(t, ts, widgetCRD, widgets)
	_, _, body := ts.do(t, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", "", "")
	conds := fmt.Sprint(jsonField(t, body, "status", "conditions"))
	for _, want := range []string{"NamesAccepted", "NoConflicts", "Established", "InitialNamesAccepted"} {
		if !strings.Contains(conds, want) {
			t.Errorf("conditions %s lack %s", conds, want)
		}
	}
	_, _, disc := ts.do(t, "GET", "/apis/example.com/v1", "", "")
	for _, want := range []string{`"name":"widgets"`, `"shortNames":["wg"]`, `"name":"widgets/status","singularName":"","namespaced":true,"kind":"Widget","verbs":["get","patch","update"]},{"name":"widgets/scale"`,
		`"verbs":["delete","deletecollection","get","list","patch","create","update","watch"]`} {
		if !strings.Contains(disc, want) {
			t.Errorf("discovery lacks %s: %s", want, disc)
		}
	}
}

func TestCustomResourceSchemaRules(t *testing.T) {
	ts := startTestServer(t)
	createCRD(t, ts, widgetCRD, widgets)
	post := func(query, body string) (int, string) {
		req := fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Widget",%s}`, body)
		code, _, out := ts.do(t, "POST", widgets+query, "application/json", req)
		return code, out
	}
	// Defaults and pruning, with the unknown fields reported by fieldValidation.
	code, out := post("?fieldValidation=Strict", `"metadata":{"name":"w"},"spec":{"color":"red","shape":"round"},"extra":1`)
	if want := `Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown field \"extra\", unknown field \"spec.shape\"`; code != 400 || !strings.Contains(out, want) {
		t.Errorf("strict: %d %s", code, out)
	}
	code, out = post("", `"metadata":{"name":"w"},"spec":{"color":"red","shape":"round"},"extra":1`)
	if code != 201 || fmt.Sprint(jsonField(t, out, "spec")) != "map[color:red size:1]" || jsonField(t, out, "extra") != nil {
		t.Errorf("create: %d %s", code, out)
	}
	// OpenAPI and CEL validation, with kube's messages.
	for body, want := range map[string]string{
		`"metadata":{"name":"w0"},"spec":{"size":0}`:                 `spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`,
		`"metadata":{"name":"w7"},"spec":{"size":7,"color":"blue"}`:  `spec: Invalid value: big widgets must be red`,
		`"metadata":{"name":"wg"},"spec":{"color":"green"}`:          `some validation rules were not checked because the object was invalid`,
		`"metadata":{"name":"wb"},"spec":{"size":"three"}`:           `.spec.size accessor error: three is of the type string, expected int64`,
		`"metadata":{"name":"Bad_Name"},"spec":{"color":"red"}`:      `metadata.name: Invalid value: \"Bad_Name\"`,
		`"metadata":{"name":"w11"},"spec":{"size":11,"color":"red"}`: `spec.size in body should be less than or equal to 10`,
	} {
		if code, out := post("", body); code != 422 || !strings.Contains(out, want) {
			t.Errorf("%s: %d %s, want 422 with %s", body, code, out, want)
		}
	}
	// A transition rule sees the stored object as oldSelf.
	code, _, out = ts.do(t, "PATCH", widgets+"/w", "application/merge-patch+json", `{"spec":{"color":"blue"}}`)
	if code != 422 || !strings.Contains(out, `spec.color: Invalid value: \"blue\": a red widget stays red, not blue`) {
		t.Errorf("transition rule: %d %s", code, out)
	}
	// Custom resources have no strategic merge patch and no protobuf.
	if code, _, _ := ts.do(t, "PATCH", widgets+"/w", "application/strategic-merge-patch+json", `{}`); code != 415 {
		t.Errorf("strategic merge patch: %d, want 415", code)
	}
	if code, ct, _ := ts.do(t, "GET", widgets+"/w", "", "", "Accept", "application/vnd.kubernetes.protobuf, application/json"); code != 200 || ct != "application/json" {
		t.Errorf("protobuf accept: %d %s, want JSON", code, ct)
	}
	// The printer columns make the Table.
	_, _, table := ts.do(t, "GET", widgets, "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	if cells := fmt.Sprint(jsonField(t, table, "rows")); !strings.Contains(cells, "cells:[w 1 red]") {
		t.Errorf("table rows %s", cells)
	}
}

func TestCustomResourceStatusAndScale(t *testing.T) {
	ts := startTestServer(t)
	createCRD(t, ts, widgetCRD, widgets)
	ts.do(t, "POST", widgets, "application/json", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"blue"},"status":{"size":9}}`)
	_, _, out := ts.do(t, "GET", widgets+"/w1", "", "")
	if jsonField(t, out, "status") != nil || jsonField(t, out, "metadata", "generation") != float64(1) {
		t.Fatalf("create kept status or generation is not 1: %s", out)
	}
	// The status part writes status only, without moving generation.
	_, _, out = ts.do(t, "PATCH", widgets+"/w1/status", "application/merge-patch+json", `{"spec":{"color":"red"},"status":{"size":3}}`)
	if jsonField(t, out, "status", "size") != float64(3) || jsonField(t, out, "spec", "color") != "blue" || jsonField(t, out, "metadata", "generation") != float64(1) {
		t.Errorf("status patch: %s", out)
	}
	// The main resource ignores status.
	_, _, out = ts.do(t, "PATCH", widgets+"/w1", "application/merge-patch+json", `{"status":{"size":9}}`)
	if jsonField(t, out, "status", "size") != float64(3) || jsonField(t, out, "metadata", "generation") != float64(1) {
		t.Errorf("main patch of status: %s", out)
	}
	// Scale reads and writes the CRD's paths; the spec change moves generation.
	_, _, scale := ts.do(t, "GET", widgets+"/w1/scale", "", "")
	if jsonField(t, scale, "spec", "replicas") != float64(1) || jsonField(t, scale, "status", "replicas") != float64(3) {
		t.Errorf("scale %s", scale)
	}
	code, _, out := ts.do(t, "PATCH", widgets+"/w1/scale", "application/merge-patch+json", `{"spec":{"replicas":4}}`)
	if code != 200 {
		t.Fatalf("scale patch: %d %s", code, out)
	}
	_, _, out = ts.do(t, "GET", widgets+"/w1", "", "")
	if jsonField(t, out, "spec", "size") != float64(4) || jsonField(t, out, "metadata", "generation") != float64(2) {
		t.Errorf("after scale: %s", out)
	}
	if code, _, out := ts.do(t, "PATCH", widgets+"/w1/scale", "application/merge-patch+json", `{"spec":{"replicas":11}}`); code != 422 || !strings.Contains(out, "less than or equal to 10") {
		t.Errorf("scale past the schema's maximum: %d %s", code, out)
	}
}

func TestCRDDeleteRemovesItsCustomResources(t *testing.T) {
	ts := startTestServer(t)
	createCRD(t, ts, widgetCRD, widgets)
	ts.do(t, "POST", widgets, "application/json", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"plain"},"spec":{"color":"red"}}`)
	ts.do(t, "POST", widgets, "application/json", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"kept","finalizers":["example.com/keep"]},"spec":{"color":"red"}}`)
	const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"
	code, _, out := ts.do(t, "DELETE", crdPath, "", "")
	if code != 200 || !strings.Contains(out, "customresourcecleanup.apiextensions.k8s.io") || !strings.Contains(out, "InstanceDeletionInProgress") {
		t.Fatalf("delete: %d %s", code, out)
	}
	waitFor(t, "the unfinalized widget to go", func() bool {
		code, _, _ := ts.do(t, "GET", widgets+"/plain", "", "")
		return code == 404
	})
	if code, _, out := ts.do(t, "POST", widgets, "application/json", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"new"}}`); code != 405 ||
		!strings.Contains(out, "create not allowed while custom resource definition is terminating") {
		t.Errorf("create while terminating: %d %s", code, out)
	}
	if code, _, _ := ts.do(t, "GET", crdPath, "", ""); code != 200 {
		t.Fatalf("the CRD went while a widget is kept by its finalizer")
	}
	ts.do(t, "PATCH", widgets+"/kept", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	waitFor(t, "the CRD and its resources to go", func() bool {
		crd, _, _ := ts.do(t, "GET", crdPath, "", "")
		list, _, _ := ts.do(t, "GET", widgets, "", "")
		return crd == 404 && list == 404
	})
}

func TestCRDNameConflict(t *testing.T) {
	ts := startTestServer(t)
	createCRD(t, ts, widgetCRD, widgets)
	other := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.example.com"},
"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo","shortNames":["wg"]},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	if code, _, out := ts.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", other); code != 201 {
		t.Fatalf("create: %d %s", code, out)
	}
	var conds string
	waitFor(t, "NamesAccepted on the second CRD", func() bool {
		_, _, out := ts.do(t, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com", "", "")
		conds = fmt.Sprint(jsonField(t, out, "status", "conditions"))
		return strings.Contains(conds, "NamesAccepted")
	})
	for _, want := range []string{"ShortNamesConflict", `"wg" is already in use`, "NotAccepted"} {
		if !strings.Contains(conds, want) {
			t.Errorf("conditions %s lack %s", conds, want)
		}
	}
	if code, _, _ := ts.do(t, "GET", "/apis/example.com/v1/namespaces/default/gizmos", "", ""); code != 404 {
		t.Errorf("a CRD whose names are not accepted is served: %d", code)
	}
}
