package registry

// PodTemplates: stored templates (what a controller could stamp pods
// from); generation moves when the template changes, as in kube.

import (
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// podTemplates is core/v1 podtemplates.
func podTemplates() *Resource {
	s := podTemplateStrategy{}
	return &Resource{
		Version: "v1", Resource: "podtemplates", Kind: "PodTemplate", ListKind: "PodTemplateList",
		Singular: "podtemplate", Namespaced: true,
		New:        func() runtime.Object { return &corev1.PodTemplate{} },
		NewList:    func() runtime.Object { return &corev1.PodTemplateList{} },
		Strategy:   s,
		Generation: s.GenerationChanged,
		Table:      printers.PodTemplates,
	}
}

type podTemplateStrategy struct{}

func (podTemplateStrategy) PrepareForCreate(obj runtime.Object) {
	defaultPodTemplate(&obj.(*corev1.PodTemplate).Template)
}

func (podTemplateStrategy) PrepareForUpdate(obj, old runtime.Object) {
	defaultPodTemplate(&obj.(*corev1.PodTemplate).Template)
}

func (podTemplateStrategy) Validate(obj runtime.Object) field.ErrorList {
	t := obj.(*corev1.PodTemplate)
	errs := ValidateMetaCreate(&t.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validatePodTemplateSpec(&t.Template, field.NewPath("template"))...)
}

func (podTemplateStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	t := obj.(*corev1.PodTemplate)
	errs := ValidateMetaUpdate(&t.ObjectMeta, &old.(*corev1.PodTemplate).ObjectMeta)
	return append(errs, validatePodTemplateSpec(&t.Template, field.NewPath("template"))...)
}

// GenerationChanged is true when the template changed.
func (podTemplateStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*corev1.PodTemplate).Template, old.(*corev1.PodTemplate).Template)
}

// validatePodTemplateSpec checks a template's metadata and pod spec.
func validatePodTemplateSpec(t *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(t.Labels, fldPath.Child("metadata", "labels"))
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(t.Annotations, fldPath.Child("metadata", "annotations"))...)
	return append(errs, validatePodSpec(&t.Spec, fldPath.Child("spec"))...)
}
