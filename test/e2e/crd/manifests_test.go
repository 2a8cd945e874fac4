package crd

// The manifests of ../shared/reference/kinds-crd-ssa-1.37.md, section 23.

const (
	// widgetCRD is crd.yaml.
	widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wg]
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
            - rule: "self.size <= 5 || self.color == 'red'"
              message: "big widgets must be red"
            properties:
              size:
                type: integer
                minimum: 1
                maximum: 10
                default: 1
              color:
                type: string
                enum: [red, blue]
          status:
            type: object
            properties:
              size:
                type: integer
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.size
        statusReplicasPath: .status.size
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
    - name: Color
      type: string
      jsonPath: .spec.color
`
	// gadgetCRD is crd-cluster.yaml.
	gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Cluster
  names:
    plural: gadgets
    singular: gadget
    kind: Gadget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`
	// thingCRD is crd-2v.yaml.
	thingCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: things
    singular: thing
    kind: Thing
  conversion:
    strategy: None
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
            properties:
              a: {type: string}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {type: string}
              b: {type: string}
`
	// w1 is w1.yaml.
	w1 = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
spec:
  color: blue
`
	// wUnknown is w-unknown.yaml.
	wUnknown = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w-unknown
spec:
  color: red
  shape: round
extra: 1
`
)
