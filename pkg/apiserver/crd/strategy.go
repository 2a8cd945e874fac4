package crd

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// strategy is the CRD kind as a registry.Strategy: the rules of
// defaults.go, prepare.go and validation.go on typed objects.
type strategy struct{}

func (strategy) PrepareForCreate(obj runtime.Object) {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	SetDefaults(crd)
	PrepareForCreate(crd)
}

func (strategy) PrepareForUpdate(obj, old runtime.Object) {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	SetDefaults(crd)
	PrepareForUpdate(crd, old.(*apiextensionsv1.CustomResourceDefinition))
}

func (strategy) Validate(obj runtime.Object) field.ErrorList {
	return Validate(obj.(*apiextensionsv1.CustomResourceDefinition))
}

func (strategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	return ValidateUpdate(obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition))
}

// GenerationChanged: the spec changed.
func (strategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*apiextensionsv1.CustomResourceDefinition).Spec, old.(*apiextensionsv1.CustomResourceDefinition).Spec)
}

// PrepareForStatusUpdate keeps everything but status.
func (strategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	crd.Spec = *old.(*apiextensionsv1.CustomResourceDefinition).Spec.DeepCopy()
}

func (strategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	return ValidateStatusUpdate(obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition))
}
