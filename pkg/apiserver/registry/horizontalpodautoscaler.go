package registry

// HorizontalPodAutoscalers: stored as autoscaling/v2, served as v2 and
// v1 (converted on the way in and out, as events.k8s.io events are).
// Stored only: no controller scales anything. Defaults are kube's
// (minReplicas 1; no metrics means 80% average CPU), and validation runs
// on the v2 form whichever version was written.

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/convert"
	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// horizontalPodAutoscalers is autoscaling/v2 horizontalpodautoscalers.
func horizontalPodAutoscalers() *Resource {
	s := hpaStrategy{}
	return &Resource{
		Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler",
		ListKind: "HorizontalPodAutoscalerList", Singular: "horizontalpodautoscaler",
		ShortNames: []string{"hpa"}, Categories: []string{"all"}, Namespaced: true,
		New:      func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		NewList:  func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} },
		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Generation: s.GenerationChanged,
		Table:      printers.HorizontalPodAutoscalers,
	}
}

// horizontalPodAutoscalersV1 is autoscaling/v1 horizontalpodautoscalers:
// the same objects, kept as v2.
func horizontalPodAutoscalersV1() *Resource {
	s := hpaV1Strategy{}
	return &Resource{
		Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler",
		ListKind: "HorizontalPodAutoscalerList", Singular: "horizontalpodautoscaler",
		ShortNames: []string{"hpa"}, Categories: []string{"all"}, Namespaced: true,
		New:      func() runtime.Object { return &autoscalingv1.HorizontalPodAutoscaler{} },
		NewList:  func() runtime.Object { return &autoscalingv1.HorizontalPodAutoscalerList{} },
		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Generation: func(obj, old runtime.Object) bool {
			return hpaStrategy{}.GenerationChanged(toV2(obj), toV2(old))
		},
		Table: printers.HorizontalPodAutoscalersV1,
		StoredAs: &StoredAs{
			Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers",
			New: func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
			ToStored: func(obj runtime.Object) (runtime.Object, error) {
				h, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler)
				if !ok {
					return nil, fmt.Errorf("not an autoscaling/v1 HorizontalPodAutoscaler: %T", obj)
				}
				v2, err := convert.HPAFromV1(h)
				if err == nil {
					defaultHPA(v2)
				}
				return v2, err
			},
			FromStored: func(stored runtime.Object) (runtime.Object, error) {
				h, ok := stored.(*autoscalingv2.HorizontalPodAutoscaler)
				if !ok {
					return nil, fmt.Errorf("not an autoscaling/v2 HorizontalPodAutoscaler: %T", stored)
				}
				return convert.HPAToV1(h)
			},
		},
	}
}

// defaultHPA applies kube's v2 defaults.
func defaultHPA(h *autoscalingv2.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		one := int32(1)
		h.Spec.MinReplicas = &one
	}
	if len(h.Spec.Metrics) == 0 {
		h.Spec.Metrics = convert.DefaultHPAMetrics()
	}
}

type hpaStrategy struct{}

// PrepareForCreate clears status and applies defaults.
func (hpaStrategy) PrepareForCreate(obj runtime.Object) {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{}
	defaultHPA(h)
}

// PrepareForUpdate keeps the stored status and applies defaults.
func (hpaStrategy) PrepareForUpdate(obj, old runtime.Object) {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	h.Status = old.(*autoscalingv2.HorizontalPodAutoscaler).Status
	defaultHPA(h)
}

// PrepareForStatusUpdate keeps the stored spec.
func (hpaStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*autoscalingv2.HorizontalPodAutoscaler).Spec = old.(*autoscalingv2.HorizontalPodAutoscaler).Spec
}

// Validate checks a new autoscaler.
func (hpaStrategy) Validate(obj runtime.Object) field.ErrorList {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	errs := ValidateMetaCreate(&h.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateHPASpec(&h.Spec, specPath)...)
}

// ValidateUpdate checks an update as a create.
func (hpaStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	errs := ValidateMetaUpdate(&h.ObjectMeta, &old.(*autoscalingv2.HorizontalPodAutoscaler).ObjectMeta)
	return append(errs, validateHPASpec(&h.Spec, specPath)...)
}

// ValidateStatusUpdate checks the replica counts.
func (hpaStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	errs := ValidateMetaUpdate(&h.ObjectMeta, &old.(*autoscalingv2.HorizontalPodAutoscaler).ObjectMeta)
	statusPath := field.NewPath("status")
	errs = append(errs, nonNegative(int64(h.Status.CurrentReplicas), statusPath.Child("currentReplicas"))...)
	return append(errs, nonNegative(int64(h.Status.DesiredReplicas), statusPath.Child("desiredReplicas"))...)
}

// GenerationChanged is true when the spec changed.
func (hpaStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*autoscalingv2.HorizontalPodAutoscaler).Spec, old.(*autoscalingv2.HorizontalPodAutoscaler).Spec)
}

// hpaV1Strategy applies v1's defaults and then v2's rules to the v2 form.
type hpaV1Strategy struct{}

// toV2 is obj (v1) in v2's form with v2's defaults; a v1 object always
// converts (the annotations that do not decode are ignored).
func toV2(obj runtime.Object) *autoscalingv2.HorizontalPodAutoscaler {
	h, _ := convert.HPAFromV1(obj.(*autoscalingv1.HorizontalPodAutoscaler))
	defaultHPA(h)
	return h
}

func (hpaV1Strategy) PrepareForCreate(obj runtime.Object) {
	h := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	h.Status = autoscalingv1.HorizontalPodAutoscalerStatus{}
	defaultHPAV1(h)
}

func (hpaV1Strategy) PrepareForUpdate(obj, old runtime.Object) {
	h, o := obj.(*autoscalingv1.HorizontalPodAutoscaler), old.(*autoscalingv1.HorizontalPodAutoscaler)
	h.Status = o.Status
	if v, ok := o.Annotations[convert.HPACurrentMetricsAnnotation]; ok {
		setAnnotation(h, convert.HPACurrentMetricsAnnotation, v)
	}
	if v, ok := o.Annotations[convert.HPAConditionsAnnotation]; ok {
		setAnnotation(h, convert.HPAConditionsAnnotation, v)
	}
	defaultHPAV1(h)
}

func (hpaV1Strategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	h, o := obj.(*autoscalingv1.HorizontalPodAutoscaler), old.(*autoscalingv1.HorizontalPodAutoscaler)
	h.Spec = o.Spec
	for _, k := range []string{convert.HPAMetricsAnnotation, convert.HPABehaviorAnnotation} {
		if v, ok := o.Annotations[k]; ok {
			setAnnotation(h, k, v)
		}
	}
}

func (hpaV1Strategy) Validate(obj runtime.Object) field.ErrorList {
	return hpaStrategy{}.Validate(toV2(obj))
}

func (hpaV1Strategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	return hpaStrategy{}.ValidateUpdate(toV2(obj), toV2(old))
}

func (hpaV1Strategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	return hpaStrategy{}.ValidateStatusUpdate(toV2(obj), toV2(old))
}

// defaultHPAV1 is kube's v1 default: minReplicas 1.
func defaultHPAV1(h *autoscalingv1.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		one := int32(1)
		h.Spec.MinReplicas = &one
	}
}

func setAnnotation(h *autoscalingv1.HorizontalPodAutoscaler, k, v string) {
	if h.Annotations == nil {
		h.Annotations = map[string]string{}
	}
	h.Annotations[k] = v
}
