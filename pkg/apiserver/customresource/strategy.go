package customresource

import (
	"context"
	"fmt"
	"math"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// strategy is a custom resource's rules, as kube's customresource
// strategy keeps them: the schema validates (OpenAPI, list types, CEL),
// status is its own part when the CRD declares the status subresource,
// and the scale paths must hold integers.
type strategy struct {
	kind       schema.GroupVersionKind
	namespaced bool
	schema     *versionSchema
	hasStatus  bool
	scale      *apiextensionsv1.CustomResourceSubresourceScale
}

func (s *strategy) PrepareForCreate(obj runtime.Object) {
	u := obj.(*unstructured.Unstructured)
	if s.hasStatus {
		delete(u.Object, "status")
	}
}

func (s *strategy) PrepareForUpdate(obj, old runtime.Object) {
	u := obj.(*unstructured.Unstructured)
	if s.hasStatus {
		keepPart(u, old.(*unstructured.Unstructured), "status")
	}
}

// keepPart sets u's top-level field name to old's (or removes it).
func keepPart(u, old *unstructured.Unstructured, name string) {
	if v, ok := old.Object[name]; ok {
		u.Object[name] = runtime.DeepCopyJSONValue(v)
	} else {
		delete(u.Object, name)
	}
}

func (s *strategy) Validate(obj runtime.Object) field.ErrorList {
	u := obj.(*unstructured.Unstructured)
	errs := s.validateMeta(u, nil)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.Object, s.schema.validator)...)
	errs = append(errs, s.validateScale(u)...)
	return s.validateRest(u, nil, errs)
}

func (s *strategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	u, was := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	errs := s.validateMeta(u, was)
	errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, u.Object, was.Object, s.schema.validator)...)
	errs = append(errs, s.validateScale(u)...)
	return s.validateRest(u, was, errs)
}

// validateRest adds embedded resources' metadata, list-type invariants
// and the CEL rules, which kube skips when earlier errors would make
// them meaningless.
func (s *strategy) validateRest(u, old *unstructured.Unstructured, errs field.ErrorList) field.ErrorList {
	ctx := context.Background()
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, s.schema.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.schema.structural, u.Object)...)
	if blocking(errs) {
		return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	var oldObj interface{}
	if old != nil {
		oldObj = old.Object
	}
	celErrs, _ := s.schema.cel.Validate(ctx, nil, s.schema.structural, u.Object, oldObj, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// blocking: an error after which CEL rules are not run, as in kube.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// validateMeta checks kind, apiVersion and metadata (on update against
// old's).
func (s *strategy) validateMeta(u, old *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if u.GetKind() != s.kind.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.GetKind(), fmt.Sprintf("must be %v", s.kind.Kind)))
	}
	if v := s.kind.GroupVersion().String(); u.GetAPIVersion() != v {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), fmt.Sprintf("must be %v", v)))
	}
	if len(errs) > 0 {
		return errs
	}
	m, err := objectMeta(u)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
	}
	if old == nil {
		return registry.ValidateMetaCreate(m, s.namespaced, apimachineryvalidation.NameIsDNSSubdomain)
	}
	was, err := objectMeta(old)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
	}
	return registry.ValidateMetaUpdate(m, was)
}

func objectMeta(u *unstructured.Unstructured) (*metav1.ObjectMeta, error) {
	m := &metav1.ObjectMeta{}
	raw, _ := u.Object["metadata"].(map[string]interface{})
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, m); err != nil {
		return nil, err
	}
	return m, nil
}

// validateScale checks that the scale paths hold what Scale needs: the
// replica counts integers in int32's range, the selector a string.
func (s *strategy) validateScale(u *unstructured.Unstructured) field.ErrorList {
	if s.scale == nil {
		return nil
	}
	errs := replicasAt(u, s.scale.SpecReplicasPath)
	errs = append(errs, replicasAt(u, s.scale.StatusReplicasPath)...)
	if p := s.scale.LabelSelectorPath; p != nil {
		if v, _, err := unstructured.NestedString(u.Object, pathOf(*p)...); err != nil {
			errs = append(errs, field.Invalid(field.NewPath(*p), v, err.Error()))
		}
	}
	return errs
}

func replicasAt(u *unstructured.Unstructured, path string) field.ErrorList {
	n, _, err := unstructured.NestedInt64(u.Object, pathOf(path)...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(path), n, err.Error())}
	case n < 0:
		return field.ErrorList{field.Invalid(field.NewPath(path), n, "should be a non-negative integer")}
	case n > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(path), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// pathOf splits a scale path (.spec.replicas) into its fields.
func pathOf(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

// generationChanged: anything but metadata changed, and status too when
// it is a part of its own.
func (s *strategy) generationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(s.generationFields(obj), s.generationFields(old))
}

func (s *strategy) generationFields(obj runtime.Object) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range obj.(*unstructured.Unstructured).Object {
		if k != "metadata" && (k != "status" || !s.hasStatus) {
			out[k] = v
		}
	}
	return out
}

// statusPart is the status subresource: a write keeps everything but
// status (and metadata the main resource owns), and validates status.
func (s *strategy) statusPart() *registry.Subresource {
	return &registry.Subresource{
		PrepareForUpdate: func(obj, old runtime.Object) {
			u, was := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
			status, hasStatus := u.Object["status"]
			kept := was.DeepCopy()
			kept.SetResourceVersion(u.GetResourceVersion())
			kept.SetManagedFields(u.GetManagedFields())
			if hasStatus {
				kept.Object["status"] = status
			} else {
				delete(kept.Object, "status")
			}
			u.Object = kept.Object
		},
		ValidateUpdate: func(obj, old runtime.Object) field.ErrorList {
			u, was := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
			errs := s.validateMeta(u, was)
			if status, ok := u.Object["status"]; ok && s.schema.status != nil {
				errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(field.NewPath("status"), status, was.Object["status"], s.schema.status)...)
			}
			if s.scale != nil {
				errs = append(errs, replicasAt(u, s.scale.StatusReplicasPath)...)
			}
			return s.validateRest(u, was, errs)
		},
	}
}
