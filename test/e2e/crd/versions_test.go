package crd

import (
	"testing"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

func testGadgets(t *testing.T, s *harness.Server) {
	expect(t, s, gadgetCRD, 0, "customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created\n", "", "create", "-f", "-")
	expectOut(t, s, "customresourcedefinition.apiextensions.k8s.io/gadgets.example.com condition met\n",
		"wait", "--for=condition=Established", "--timeout=10s", "crd/gadgets.example.com")
	createIn(t, s, "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  anything: goes\n", "gadget.example.com/g1 created\n")
	expectAged(t, s, "NAME   AGE\ng1     0s\n", "get", "gadgets")
	expectOut(t, s, `apiVersion: example.com/v1
kind: Gadget
metadata:
  creationTimestamp: "2026-12-01T08:48:54Z"
  generation: 1
  name: g1
  resourceVersion: "604"
  uid: 3a0bcc2c-de57-4ecd-98d7-ca9dfebec5eb
spec:
  anything: goes
`, "get", "gadget", "g1", "-o", "yaml")
	expectAged(t, s, "NAME   AGE\ng1     0s\n", "get", "gadgets", "-n", "default")
	expectOut(t, s, `NAME                  SCOPE        VERSIONS      CREATED AT
gadgets.example.com   Cluster      v1(storage)   2026-12-01T08:48:52Z
widgets.example.com   Namespaced   v1(storage)   2026-12-01T08:48:29Z
`, "get", "crds")
}

// expectAged is expectOut for a table whose AGE cells are under 10 s.
func expectAged(t *testing.T, s *harness.Server, want string, args ...string) {
	t.Helper()
	got := ok(t, s, args...).Stdout
	if norm := ageUnder10s.ReplaceAllString(got, "${1}0s"); norm != want {
		t.Errorf("kubectl %v:\n got:\n%s\nwant:\n%s", args, got, want)
	}
}

const thingV1Reply = `HTTP/2 200 
content-type: application/json

{
  "apiVersion": "example.com/v1",
  "kind": "Thing",
  "metadata": {
    "creationTimestamp": "2026-12-01T08:48:57Z",
    "generation": 1,
    "managedFields": [
      {
        "apiVersion": "example.com/v2",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
          "f:spec": {
            ".": {},
            "f:a": {},
            "f:b": {}
          }
        },
        "manager": "kubectl-create",
        "operation": "Update",
        "time": "2026-12-01T08:48:57Z"
      }
    ],
    "name": "t1",
    "namespace": "default",
    "resourceVersion": "609",
    "uid": "cf0dcadc-fafe-4c1c-b5bc-d89134d12a6f"
  },
  "spec": {
    "a": "hello"
  }
}`

func testThings(t *testing.T, s *harness.Server) {
	expect(t, s, thingCRD, 0, "customresourcedefinition.apiextensions.k8s.io/things.example.com created\n", "", "create", "-f", "-")
	expectOut(t, s, "customresourcedefinition.apiextensions.k8s.io/things.example.com condition met\n",
		"wait", "--for=condition=Established", "--timeout=10s", "crd/things.example.com")
	expectOut(t, s, `{"acceptedNames":{"kind":"Thing","listKind":"ThingList","plural":"things","singular":"thing"},"conditions":[{"lastTransitionTime":"2026-12-01T08:48:55Z","message":"no conflicts found","reason":"NoConflicts","status":"True","type":"NamesAccepted"},{"lastTransitionTime":"2026-12-01T08:48:55Z","message":"the initial names have been accepted","reason":"InitialNamesAccepted","status":"True","type":"Established"}],"storedVersions":["v1"]}`,
		"get", "crd", "things.example.com", "-o", "jsonpath={.status}")
	expectOut(t, s, `NAME                 SCOPE        VERSIONS         CREATED AT
things.example.com   Namespaced   v1(storage),v2   2026-12-01T08:48:55Z
`, "get", "crd", "things.example.com")
	if diff := same("/apis example.com with v2", groupOf(t, curl(t, s, "GET", "/apis", ""), "example.com"), `{
  "name": "example.com",
  "versions": [
    {
      "groupVersion": "example.com/v2",
      "version": "v2"
    },
    {
      "groupVersion": "example.com/v1",
      "version": "v1"
    }
  ],
  "preferredVersion": {
    "groupVersion": "example.com/v2",
    "version": "v2"
  }
}`); diff != "" {
		t.Error(diff)
	}
	expectCurl(t, "/apis/example.com/v2", curl(t, s, "GET", "/apis/example.com/v2", ""), `HTTP/2 200 
content-type: application/json

{
  "kind": "APIResourceList",
  "apiVersion": "v1",
  "groupVersion": "example.com/v2",
  "resources": [
    {
      "name": "things",
      "singularName": "thing",
      "namespaced": true,
      "kind": "Thing",
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
      "storageVersionHash": "MkkTy7bNlnM="
    }
  ]
}`)
	createIn(t, s, "apiVersion: example.com/v2\nkind: Thing\nmetadata:\n  name: t1\nspec:\n  a: hello\n  b: only-in-v2\n", "thing.example.com/t1 created\n")
	r := curl(t, s, "GET", "/apis/example.com/v1/namespaces/default/things/t1", "")
	if diff := same("GET t1 via v1", r.curlI(), thingV1Reply); diff != "" {
		t.Error(diff + "\n(kube-apiserver records the fields of the request's version, v2, in managedFields: f:b too)")
	}
	r = curl(t, s, "GET", "/apis/example.com/v2/namespaces/default/things/t1", "")
	want := replaced(t, thingV1Reply, `"apiVersion": "example.com/v1",
  "kind": "Thing"`, `"apiVersion": "example.com/v2",
  "kind": "Thing"`)
	if diff := same("GET t1 via v2", r.curlI(), want); diff != "" {
		t.Error(diff)
	}
	res := ok(t, s, "get", "things", "t1", "-o", "yaml")
	if got, want := firstLines(res.Stdout, 3), "apiVersion: example.com/v2\nkind: Thing\nmetadata:\n"; got != want {
		t.Errorf("kubectl get things t1 -o yaml | head -3:\n got %q\nwant %q (kubectl reads the preferred version)", got, want)
	}
}
