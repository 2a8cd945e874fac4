package crd

import (
	"encoding/json"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

const widgetsPath = "/apis/example.com/v1/namespaces/default/widgets"

func testDefaulting(t *testing.T, s *harness.Server) {
	expect(t, s, "", 0, "widget.example.com/w1 created\n", "", "create", "-f", file(t, "w1.yaml", w1))
	expectOut(t, s, `apiVersion: example.com/v1
kind: Widget
metadata:
  creationTimestamp: "2026-12-01T08:48:31Z"
  generation: 1
  name: w1
  namespace: default
  resourceVersion: "586"
  uid: d2f3768e-e536-4b71-951b-c9804719bd48
spec:
  color: blue
  size: 1
`, "get", "widget", "w1", "-o", "yaml")
	expectCurl(t, "GET w1", curl(t, s, "GET", widgetsPath+"/w1", ""), `HTTP/2 200 
content-type: application/json

{
  "apiVersion": "example.com/v1",
  "kind": "Widget",
  "metadata": {
    "creationTimestamp": "2026-12-01T08:48:31Z",
    "generation": 1,
    "managedFields": [
      {
        "apiVersion": "example.com/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
          "f:spec": {
            ".": {},
            "f:color": {},
            "f:size": {}
          }
        },
        "manager": "kubectl-create",
        "operation": "Update",
        "time": "2026-12-01T08:48:31Z"
      }
    ],
    "name": "w1",
    "namespace": "default",
    "resourceVersion": "586",
    "uid": "d2f3768e-e536-4b71-951b-c9804719bd48"
  },
  "spec": {
    "color": "blue",
    "size": 1
  }
}`)
}

// unknownBody is the reference's raw POST body, with name.
func unknownBody(name string) string {
	return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"color":"red","shape":"round"},"extra":1}`
}

func testUnknownFields(t *testing.T, s *harness.Server) {
	path := file(t, "w-unknown.yaml", wUnknown)
	// kubectl names the file as it was given; the reference gave "w-unknown.yaml".
	res := kubectl(s, "", "create", "-f", path)
	want := "Error from server (BadRequest): error when creating \"" + path + "\": Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown field \"extra\", unknown field \"spec.shape\"\n"
	if res.ExitCode != 1 || res.Stdout != "" || res.Stderr != want {
		t.Errorf("kubectl create (strict):\n got %s\nwant stderr %q", res, want)
	}
	expect(t, s, "", 0, "widget.example.com/w-unknown created\n", "Warning: unknown field \"extra\"\nWarning: unknown field \"spec.shape\"\n",
		"create", "-f", path, "--validate=warn")
	expectOut(t, s, `{"color":"red","size":1}`, "get", "widget", "w-unknown", "-o", "jsonpath={.spec}")
	expectOut(t, s, "widget.example.com \"w-unknown\" deleted from default namespace\n", "delete", "widget", "w-unknown")
	expectOut(t, s, "widget.example.com/w-unknown created\n", "create", "-f", path, "--validate=false")
	expectOut(t, s, "widget.example.com \"w-unknown\" deleted from default namespace\n", "delete", "widget", "w-unknown")

	expectCurl(t, "POST without fieldValidation", curl(t, s, "POST", widgetsPath, unknownBody("w-u2")), `HTTP/2 201 
content-type: application/json
warning: 299 - "unknown field \"extra\""
warning: 299 - "unknown field \"spec.shape\""

{
  "apiVersion": "example.com/v1",
  "kind": "Widget",
  "metadata": {
    "creationTimestamp": "2026-12-01T08:48:31Z",
    "generation": 1,
    "managedFields": [
      {
        "apiVersion": "example.com/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
          "f:spec": {
            ".": {},
            "f:color": {},
            "f:size": {}
          }
        },
        "manager": "curl",
        "operation": "Update",
        "time": "2026-12-01T08:48:31Z"
      }
    ],
    "name": "w-u2",
    "namespace": "default",
    "resourceVersion": "591",
    "uid": "5e92d345-708c-4a2e-859d-cd2f5dc16327"
  },
  "spec": {
    "color": "red",
    "size": 1
  }
}`)
	expectCurl(t, "POST fieldValidation=Strict", curl(t, s, "POST", widgetsPath+"?fieldValidation=Strict", unknownBody("w-u3")), `HTTP/2 400 
content-type: application/json

{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown field \"extra\", unknown field \"spec.shape\"",
  "reason": "BadRequest",
  "code": 400
}`)
	r := curl(t, s, "POST", widgetsPath+"?fieldValidation=Ignore", unknownBody("w-u4"))
	var created struct {
		Metadata struct{ Name string } `json:"metadata"`
		Spec     json.RawMessage       `json:"spec"`
	}
	if r.code != 201 || len(r.header.Values("Warning")) != 0 || json.Unmarshal([]byte(r.body), &created) != nil {
		t.Fatalf("POST fieldValidation=Ignore: want 201 without warnings, got %s", r.curlI())
	}
	got := `"` + created.Metadata.Name + "\"\n" + indentedJSON(t, string(created.Spec))
	if want := "\"w-u4\"\n{\n  \"color\": \"red\",\n  \"size\": 1\n}"; got != want {
		t.Errorf("POST fieldValidation=Ignore: got\n%s\nwant\n%s", got, want)
	}
}
