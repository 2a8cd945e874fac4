package crd

import (
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

func scaleReply(rv string, spec, status int) string {
	return `HTTP/2 200 
content-type: application/json

{
  "kind": "Scale",
  "apiVersion": "autoscaling/v1",
  "metadata": {
    "name": "w1",
    "namespace": "default",
    "uid": "d2f3768e-e536-4b71-951b-c9804719bd48",
    "resourceVersion": "` + rv + `",
    "creationTimestamp": "2026-12-01T08:48:31Z"
  },
  "spec": {
    "replicas": ` + string(rune('0'+spec)) + `
  },
  "status": {
    "replicas": ` + string(rune('0'+status)) + `
  }
}`
}

func testScaleAndStatus(t *testing.T, s *harness.Server) {
	expectCurl(t, "GET scale", curl(t, s, "GET", widgetsPath+"/w1/scale", ""), scaleReply("586", 1, 0))
	expectOut(t, s, "widget.example.com/w1 scaled\n", "scale", "widget", "w1", "--replicas=3")
	expectOut(t, s, `{"color":"blue","size":3}`, "get", "widget", "w1", "-o", "jsonpath={.spec}")
	expect(t, s, "", 1, "", `The Widget "w1" is invalid: 
* spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10
* spec: Invalid value: big widgets must be red
`, "scale", "widget", "w1", "--replicas=11")
	expectCurl(t, "PATCH status", curl(t, s, "PATCH", widgetsPath+"/w1/status", `{"status":{"size":3}}`, "Content-Type", "application/merge-patch+json"), `HTTP/2 200 
content-type: application/json

{
  "apiVersion": "example.com/v1",
  "kind": "Widget",
  "metadata": {
    "creationTimestamp": "2026-12-01T08:48:31Z",
    "generation": 2,
    "managedFields": [
      {
        "apiVersion": "example.com/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
          "f:spec": {
            "f:size": {}
          }
        },
        "manager": "kubectl",
        "operation": "Update",
        "subresource": "scale"
      },
      {
        "apiVersion": "example.com/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
          "f:spec": {
            ".": {},
            "f:color": {}
          }
        },
        "manager": "kubectl-create",
        "operation": "Update",
        "time": "2026-12-01T08:48:31Z"
      },
      {
        "apiVersion": "example.com/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
          "f:status": {
            ".": {},
            "f:size": {}
          }
        },
        "manager": "curl",
        "operation": "Update",
        "subresource": "status",
        "time": "2026-12-01T08:48:32Z"
      }
    ],
    "name": "w1",
    "namespace": "default",
    "resourceVersion": "595",
    "uid": "d2f3768e-e536-4b71-951b-c9804719bd48"
  },
  "spec": {
    "color": "blue",
    "size": 3
  },
  "status": {
    "size": 3
  }
}`)
	expectCurl(t, "GET scale after", curl(t, s, "GET", widgetsPath+"/w1/scale", ""), scaleReply("595", 3, 3))
	// The reference ran `kubectl patch ... && kubectl get ...`.
	expectOut(t, s, "widget.example.com/w1 patched (no change)\n", "patch", "widget", "w1", "--type=merge", "-p", `{"status":{"size":9}}`)
	expectOut(t, s, `{"size":3}`, "get", "widget", "w1", "-o", "jsonpath={.status}")

	// generation moves with spec only: not with status, nor metadata.
	expectOut(t, s, "2", "get", "widget", "w1", "-o", "jsonpath={.metadata.generation}")
	expectOut(t, s, "widget.example.com/w1 labeled\n", "label", "widget", "w1", "tier=a")
	ok(t, s, "patch", "widget", "w1", "--subresource=status", "--type=merge", "-p", `{"status":{"size":2}}`)
	expectOut(t, s, "2", "get", "widget", "w1", "-o", "jsonpath={.metadata.generation}")
	ok(t, s, "patch", "widget", "w1", "--type=merge", "-p", `{"spec":{"color":"red"}}`)
	expectOut(t, s, "3", "get", "widget", "w1", "-o", "jsonpath={.metadata.generation}")
	// Put w1 back as the reference left it: the Table and the delete count it.
	ok(t, s, "label", "widget", "w1", "tier-")
}
