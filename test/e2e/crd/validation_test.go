package crd

import (
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

func widgetYAML(name, spec string) string {
	return "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\nspec:\n" + spec
}

const notChecked = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

func testValidationErrors(t *testing.T, s *harness.Server) {
	expect(t, s, widgetYAML("w0", "  size: 0\n"), 1, "",
		"The Widget \"w0\" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1\n", "create", "-f", "-")
	expect(t, s, widgetYAML("wg", "  color: green\n"), 1, "", `The Widget "wg" is invalid: 
* spec.color: Unsupported value: "green": supported values: "red", "blue"
* <nil>: Invalid value: null: `+notChecked+"\n", "create", "-f", "-")
	expect(t, s, widgetYAML("w7", "  size: 7\n  color: blue\n"), 1, "",
		"The Widget \"w7\" is invalid: spec: Invalid value: big widgets must be red\n", "create", "-f", "-")
	expect(t, s, widgetYAML("wbad", "  size: \"three\"\n"), 1, "", `The Widget "wbad" is invalid: 
* spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"
* .spec.size: Invalid value: 0: .spec.size accessor error: three is of the type string, expected int64
* <nil>: Invalid value: null: `+notChecked+"\n", "create", "-f", "-")

	expectCurl(t, "POST w0", curl(t, s, "POST", widgetsPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w0"},"spec":{"size":0}}`), `HTTP/2 422 
content-type: application/json

{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Widget.example.com \"w0\" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
  "reason": "Invalid",
  "details": {
    "name": "w0",
    "group": "example.com",
    "kind": "Widget",
    "causes": [
      {
        "reason": "FieldValueInvalid",
        "message": "Invalid value: 0: spec.size in body should be greater than or equal to 1",
        "field": "spec.size"
      }
    ]
  },
  "code": 422
}`)
	expectCurl(t, "POST wg", curl(t, s, "POST", widgetsPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"wg"},"spec":{"color":"green"}}`), `HTTP/2 422 
content-type: application/json

{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Widget.example.com \"wg\" is invalid: [spec.color: Unsupported value: \"green\": supported values: \"red\", \"blue\", \u003cnil\u003e: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]",
  "reason": "Invalid",
  "details": {
    "name": "wg",
    "group": "example.com",
    "kind": "Widget",
    "causes": [
      {
        "reason": "FieldValueNotSupported",
        "message": "Unsupported value: \"green\": supported values: \"red\", \"blue\"",
        "field": "spec.color"
      },
      {
        "reason": "FieldValueInvalid",
        "message": "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        "field": "\u003cnil\u003e"
      }
    ]
  },
  "code": 422
}`)
	expectCurl(t, "POST w7", curl(t, s, "POST", widgetsPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w7"},"spec":{"size":7,"color":"blue"}}`), `HTTP/2 422 
content-type: application/json

{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Widget.example.com \"w7\" is invalid: spec: Invalid value: big widgets must be red",
  "reason": "Invalid",
  "details": {
    "name": "w7",
    "group": "example.com",
    "kind": "Widget",
    "causes": [
      {
        "reason": "FieldValueInvalid",
        "message": "Invalid value: big widgets must be red",
        "field": "spec"
      }
    ]
  },
  "code": 422
}`)
}

func testWidgetTable(t *testing.T, s *harness.Server) {
	createIn(t, s, widgetYAML("w2", "  size: 7\n  color: red\n"), "widget.example.com/w2 created\n")
	const all = `NAME   SIZE   COLOR
w-u2   1      red
w-u4   1      red
w1     1      blue
w2     7      red
`
	expectOut(t, s, all, "get", "widgets")
	expectOut(t, s, all, "get", "wg", "-o", "wide")
	expectOut(t, s, "NAME   SIZE   COLOR\nw2     7      red\n", "get", "widgets.example.com", "w2")
	r := curl(t, s, "GET", widgetsPath+"?limit=500", "", "Accept", tableAccept)
	if diff := same("Widget Table", tableSummary(t, r), `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"593"}}
{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace. Is required when cre…","priority":0}
{"name":"Size","type":"integer","format":"","description":"Custom resource definition column (in JSONPath format): .spe…","priority":0}
{"name":"Color","type":"string","format":"","description":"Custom resource definition column (in JSONPath format): .spe…","priority":0}
{"cells":["w-u2",1,"red"]}`); diff != "" {
		t.Error(diff)
	}
}

func testExplain(t *testing.T, s *harness.Server) {
	expectOut(t, s, `GROUP:      example.com
KIND:       Widget
VERSION:    v1

FIELD: spec <Object>


DESCRIPTION:
    <empty>
FIELDS:
  color	<string>
  enum: red, blue
    <no description>

  size	<integer>
    <no description>


`, "explain", "widgets.spec")
	const widget = `GROUP:      example.com
KIND:       Widget
VERSION:    v1

DESCRIPTION:
    <empty>
FIELDS:
  apiVersion	<string>
    APIVersion defines the versioned schema of this representation of an object.
    Servers should convert recognized schemas to the latest internal value, and
    may reject unrecognized values. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources

  kind	<string>
    Kind is a string value representing the REST resource this object
    represents. Servers may infer this from the endpoint the client submits
    requests to. Cannot be updated. In CamelCase. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds

  metadata	<ObjectMeta>
    Standard object's metadata. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

  spec	<Object>
    <no description>

  status	<Object>
    <no description>


`
	expectOut(t, s, widget, "explain", "widget")
	expectOut(t, s, widget, "explain", "widgets")
}
