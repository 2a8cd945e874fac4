package crd

import (
	"encoding/json"
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestReferenceSection23 replays section 23 of the reference in its order
// on one server: the commands depend on what the earlier ones created (the
// Table lists w-u2 and w-u4, the delete counts four Widgets).
func TestReferenceSection23(t *testing.T) {
	t.Parallel()
	s := start(t)
	steps := []struct {
		name string
		run  func(*testing.T, *harness.Server)
	}{
		{"WidgetCRD", testWidgetCRD},
		{"Discovery", testWidgetDiscovery},
		{"Defaulting", testDefaulting},
		{"UnknownFields", testUnknownFields},
		{"ValidationErrors", testValidationErrors},
		{"Table", testWidgetTable},
		{"Explain", testExplain},
		{"ScaleAndStatus", testScaleAndStatus},
		{"ClusterScoped", testGadgets},
		{"TwoVersions", testThings},
		{"Delete", testDeleteWidgetCRD},
	}
	for _, st := range steps {
		if !t.Run(st.name, func(t *testing.T) { st.run(t, s) }) && st.name == "WidgetCRD" {
			t.FailNow() // nothing after it can work
		}
	}
}

func testWidgetCRD(t *testing.T, s *harness.Server) {
	expect(t, s, widgetCRD, 0, "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n", "", "create", "-f", "-")
	expectOut(t, s, "customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met\n",
		"wait", "--for=condition=Established", "--timeout=10s", "crd/widgets.example.com")
	expectOut(t, s, widgetCRDYAML, "get", "crd", "widgets.example.com", "-o", "yaml")
	expectOut(t, s, `NAME                  SCOPE        VERSIONS      CREATED AT
widgets.example.com   Namespaced   v1(storage)   2026-12-01T08:48:29Z
`, "get", "crds")
	expectOut(t, s, `NAME                  SCOPE        VERSIONS      CREATED AT             GROUP         KIND     SHORTNAMES   ESTABLISHED
widgets.example.com   Namespaced   v1(storage)   2026-12-01T08:48:29Z   example.com   Widget   wg           true
`, "get", "crd", "-o", "wide")
	r := curl(t, s, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?limit=500", "", "Accept", tableAccept)
	if diff := same("CRD Table", tableSummary(t, r), crdTableSummary); diff != "" {
		t.Error(diff)
	}
}

func testWidgetDiscovery(t *testing.T, s *harness.Server) {
	r := curl(t, s, "GET", "/apis", "")
	if diff := same("/apis example.com", groupOf(t, r, "example.com"), exampleGroupV1); diff != "" {
		t.Error(diff)
	}
	expectCurl(t, "/apis/example.com", curl(t, s, "GET", "/apis/example.com", ""), "HTTP/2 200 \ncontent-type: application/json\n\n"+
		`{
  "kind": "APIGroup",
  "apiVersion": "v1",
`+exampleGroupV1[2:])
	expectCurl(t, "/apis/example.com/v1", curl(t, s, "GET", "/apis/example.com/v1", ""), widgetResourceList)
	expectOut(t, s, `NAME      SHORTNAMES   APIVERSION       NAMESPACED   KIND     VERBS                                                        CATEGORIES
widgets   wg           example.com/v1   true         Widget   delete,deletecollection,get,list,patch,create,update,watch   
`, "api-resources", "--api-group=example.com", "-o", "wide")
}

// groupOf is jq's `.groups[] | select(.name==NAME)` on an APIGroupList.
func groupOf(t *testing.T, r reply, name string) string {
	t.Helper()
	var list struct {
		Groups []json.RawMessage `json:"groups"`
	}
	if err := json.Unmarshal([]byte(r.body), &list); err != nil {
		t.Fatalf("/apis: %v\n%s", err, r.body)
	}
	for _, g := range list.Groups {
		var named struct{ Name string }
		if json.Unmarshal(g, &named) == nil && named.Name == name {
			return indentedJSON(t, string(g))
		}
	}
	t.Fatalf("no group %s in /apis", name)
	return ""
}

const exampleGroupV1 = `{
  "name": "example.com",
  "versions": [
    {
      "groupVersion": "example.com/v1",
      "version": "v1"
    }
  ],
  "preferredVersion": {
    "groupVersion": "example.com/v1",
    "version": "v1"
  }
}`

const widgetCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  creationTimestamp: "2026-12-01T08:48:29Z"
  generation: 1
  name: widgets.example.com
  resourceVersion: "585"
  uid: db3f94b2-fa27-49d7-8ef0-dd07354b15bb
spec:
  conversion:
    strategy: None
  group: example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    shortNames:
    - wg
    singular: widget
  scope: Namespaced
  versions:
  - additionalPrinterColumns:
    - jsonPath: .spec.size
      name: Size
      type: integer
    - jsonPath: .spec.color
      name: Color
      type: string
    name: v1
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              color:
                enum:
                - red
                - blue
                type: string
              size:
                default: 1
                maximum: 10
                minimum: 1
                type: integer
            type: object
            x-kubernetes-validations:
            - message: big widgets must be red
              rule: self.size <= 5 || self.color == 'red'
          status:
            properties:
              size:
                type: integer
            type: object
        type: object
    served: true
    storage: true
    subresources:
      scale:
        specReplicasPath: .spec.size
        statusReplicasPath: .status.size
      status: {}
status:
  acceptedNames:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    shortNames:
    - wg
    singular: widget
  conditions:
  - lastTransitionTime: "2026-12-01T08:48:29Z"
    message: no conflicts found
    reason: NoConflicts
    status: "True"
    type: NamesAccepted
  - lastTransitionTime: "2026-12-01T08:48:29Z"
    message: the initial names have been accepted
    reason: InitialNamesAccepted
    status: "True"
    type: Established
  storedVersions:
  - v1
`

const crdTableSummary = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"585"}}
{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace. Is required when cre…","priority":0}
{"name":"Scope","type":"string","format":"","description":"Cluster/Namespaced","priority":0}
{"name":"Versions","type":"string","format":"","description":"Served versions","priority":0}
{"name":"Created At","type":"date","format":"","description":"CreationTimestamp is a timestamp representing the server tim…","priority":0}
{"name":"Group","type":"string","format":"","description":"API group","priority":1}
{"name":"Kind","type":"string","format":"","description":"CustomResource kind","priority":1}
{"name":"ShortNames","type":"string","format":"","description":"Short names","priority":1}
{"name":"Established","type":"boolean","format":"","description":"Established status","priority":1}
{"cells":["widgets.example.com","Namespaced","v1(storage)","2026-12-01T08:48:29Z","example.com","Widget","wg",true]}`

const widgetResourceList = `HTTP/2 200 
content-type: application/json

{
  "kind": "APIResourceList",
  "apiVersion": "v1",
  "groupVersion": "example.com/v1",
  "resources": [
    {
      "name": "widgets",
      "singularName": "widget",
      "namespaced": true,
      "kind": "Widget",
      "verbs": [
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "create",
        "update",
        "watch"
      ],
      "shortNames": [
        "wg"
      ],
      "storageVersionHash": "gIwvi5rymmg="
    },
    {
      "name": "widgets/status",
      "singularName": "",
      "namespaced": true,
      "kind": "Widget",
      "verbs": [
        "get",
        "patch",
        "update"
      ]
    },
    {
      "name": "widgets/scale",
      "singularName": "",
      "namespaced": true,
      "group": "autoscaling",
      "version": "v1",
      "kind": "Scale",
      "verbs": [
        "get",
        "patch",
        "update"
      ]
    }
  ]
}`
