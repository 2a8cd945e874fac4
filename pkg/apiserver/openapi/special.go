package openapi

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Types whose JSON form is not what their Go struct suggests: each has a
// custom marshaller, so its schema is written here, as kube-openapi's
// OpenAPIDefinition overrides do for kube-apiserver.
var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	durationType  = reflect.TypeFor[metav1.Duration]()
	fieldsV1Type  = reflect.TypeFor[metav1.FieldsV1]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
	intOrStrType  = reflect.TypeFor[intstr.IntOrString]()
	rawExtType    = reflect.TypeFor[runtime.RawExtension]()
)

func described(s spec.Schema, description string) spec.Schema {
	s.Description = description
	return s
}

func special(t reflect.Type, v3 bool) (spec.Schema, bool) {
	switch t {
	case timeType:
		return described(scalar("string", "date-time"), "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers."), true
	case microTimeType:
		return described(scalar("string", "date-time"), "MicroTime is version of Time with microsecond level precision."), true
	case durationType:
		return described(scalar("string", ""), "Duration is a wrapper around time.Duration which supports correct marshaling to YAML and JSON."), true
	case fieldsV1Type:
		return described(scalar("object", ""), docOf(t)[""]), true
	case rawExtType:
		return described(scalar("object", ""), docOf(t)[""]), true
	case quantityType:
		if v3 {
			return spec.Schema{SchemaProps: spec.SchemaProps{Description: quantityDoc,
				OneOf: []spec.Schema{scalar("string", ""), scalar("number", "")}}}, true
		}
		return described(scalar("string", ""), quantityDoc), true
	case intOrStrType:
		if v3 {
			s := spec.Schema{SchemaProps: spec.SchemaProps{Description: intOrStringDoc, Format: "int-or-string",
				AnyOf: []spec.Schema{scalar("integer", ""), scalar("string", "")}}}
			s.AddExtension("x-kubernetes-int-or-string", true)
			return s, true
		}
		return described(scalar("string", "int-or-string"), intOrStringDoc), true
	}
	return spec.Schema{}, false
}

const (
	quantityDoc    = "Quantity is a fixed-point representation of a number. It provides convenient marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors. It is written as a string such as \"100m\", \"1Gi\" or \"2.5\", or as a plain number."
	intOrStringDoc = "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number."
)
