package registry

// ControllerRevisions: a snapshot of a workload's template (data) and its
// revision number. The data never changes once written.

import (
	"bytes"
	"encoding/json"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// controllerRevisions is apps/v1 controllerrevisions.
func controllerRevisions() *Resource {
	s := controllerRevisionStrategy{}
	return &Resource{
		Group: "apps", Version: "v1", Resource: "controllerrevisions", Kind: "ControllerRevision", ListKind: "ControllerRevisionList",
		Singular: "controllerrevision", Namespaced: true,
		New:      func() runtime.Object { return &appsv1.ControllerRevision{} },
		NewList:  func() runtime.Object { return &appsv1.ControllerRevisionList{} },
		Strategy: s,
		Table:    printers.ControllerRevisions,
	}
}

type controllerRevisionStrategy struct{}

// PrepareForCreate has nothing to default.
func (controllerRevisionStrategy) PrepareForCreate(runtime.Object) {}

// PrepareForUpdate has nothing to keep: there is no status.
func (controllerRevisionStrategy) PrepareForUpdate(_, _ runtime.Object) {}

// Validate checks a new ControllerRevision.
func (controllerRevisionStrategy) Validate(obj runtime.Object) field.ErrorList {
	r := obj.(*appsv1.ControllerRevision)
	errs := ValidateMetaCreate(&r.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateControllerRevisionBody(r)...)
}

// ValidateUpdate: the data is immutable.
func (controllerRevisionStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	r, o := obj.(*appsv1.ControllerRevision), old.(*appsv1.ControllerRevision)
	errs := ValidateMetaUpdate(&r.ObjectMeta, &o.ObjectMeta)
	if !sameRawJSON(r.Data.Raw, o.Data.Raw) {
		errs = append(errs, field.Invalid(field.NewPath("data"), jsonValue{json.RawMessage(orNull(r.Data.Raw))}, "field is immutable"))
	}
	return append(errs, validateControllerRevisionBody(r)...)
}

// validateControllerRevisionBody: data is required, revision is not negative.
func validateControllerRevisionBody(r *appsv1.ControllerRevision) field.ErrorList {
	var errs field.ErrorList
	if len(r.Data.Raw) == 0 && r.Data.Object == nil {
		errs = append(errs, field.Required(field.NewPath("data"), "data is mandatory"))
	}
	return append(errs, nonNegative(r.Revision, field.NewPath("revision"))...)
}

// sameRawJSON compares two JSON documents by value, so a client that
// re-encodes the same data (other spacing, other key order) is not
// refused.
func sameRawJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func orNull(raw []byte) []byte {
	if len(raw) == 0 {
		return []byte("null")
	}
	return raw
}
