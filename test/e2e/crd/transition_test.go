package crd

import (
	"testing"
)

// gizmoCRD has CEL transition rules (oldSelf): one with messageExpression
// and fieldPath on spec, one with message and reason on a scalar field.
// The messageExpression uses no string(int): kube's cost estimate for
// that exceeds the CRD budget 100 times, and the CRD would be refused.
const gizmoCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: gizmos
    singular: gizmo
    kind: Gizmo
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.replicas >= oldSelf.replicas"
              messageExpression: "'replicas may not go down' + (self.replicas == 1 ? ' to one' : '')"
              fieldPath: ".replicas"
            properties:
              replicas:
                type: integer
              mode:
                type: string
                x-kubernetes-validations:
                - rule: "self == oldSelf"
                  message: mode is immutable
                  reason: FieldValueForbidden
`

// TestCELTransitionRules: transition rules are skipped on create and
// checked on update against the old object. The wording is
// apiextensions-apiserver's CEL validator's (the library kube-apiserver
// runs): an object's value is left out, a scalar's is shown, fieldPath
// moves the error to the field, reason FieldValueForbidden makes it
// "Forbidden".
func TestCELTransitionRules(t *testing.T) {
	t.Parallel()
	s := start(t)
	createCRD(t, s, gizmoCRD)
	createIn(t, s, "apiVersion: example.com/v1\nkind: Gizmo\nmetadata:\n  name: gz\nspec:\n  replicas: 3\n  mode: fast\n", "gizmo.example.com/gz created\n")
	expectOut(t, s, "gizmo.example.com/gz patched\n", "patch", "gizmo", "gz", "--type=merge", "-p", `{"spec":{"replicas":4}}`)

	expect(t, s, "", 1, "", "The Gizmo \"gz\" is invalid: spec.replicas: Invalid value: replicas may not go down\n",
		"patch", "gizmo", "gz", "--type=merge", "-p", `{"spec":{"replicas":2}}`)
	expect(t, s, "", 1, "", "The Gizmo \"gz\" is invalid: spec.mode: Forbidden: mode is immutable\n",
		"patch", "gizmo", "gz", "--type=merge", "-p", `{"spec":{"mode":"slow"}}`)

	r := curl(t, s, "PATCH", "/apis/example.com/v1/namespaces/default/gizmos/gz", `{"spec":{"replicas":1,"mode":"slow"}}`, "Content-Type", "application/merge-patch+json")
	expectCurl(t, "PATCH breaking both rules", r, `HTTP/2 422 
content-type: application/json

{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Gizmo.example.com \"gz\" is invalid: [spec.replicas: Invalid value: replicas may not go down to one, spec.mode: Forbidden: mode is immutable]",
  "reason": "Invalid",
  "details": {
    "name": "gz",
    "group": "example.com",
    "kind": "Gizmo",
    "causes": [
      {
        "reason": "FieldValueInvalid",
        "message": "Invalid value: replicas may not go down to one",
        "field": "spec.replicas"
      },
      {
        "reason": "FieldValueForbidden",
        "message": "Forbidden: mode is immutable",
        "field": "spec.mode"
      }
    ]
  },
  "code": 422
}`)
	expectOut(t, s, `{"mode":"fast","replicas":4}`, "get", "gizmo", "gz", "-o", "jsonpath={.spec}")
}
