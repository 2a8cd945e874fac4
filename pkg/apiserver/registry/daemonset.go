package registry

// DaemonSets: kube's defaults (RollingUpdate with maxUnavailable 1 and
// maxSurge 0, 10 revisions kept, the pod template's defaults), the
// template generation annotation, validation in kube's order and words,
// and the status subresource.

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// TemplateGenerationAnnotation is where apps/v1 keeps a DaemonSet's
// template generation: 1 on create, one more on each template change.
const TemplateGenerationAnnotation = "deprecated.daemonset.template.generation"

// daemonSets is apps/v1 daemonsets.
func daemonSets() *Resource {
	s := daemonSetStrategy{}
	return &Resource{
		Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", ListKind: "DaemonSetList", Singular: "daemonset",
		ShortNames: []string{"ds"}, Categories: []string{"all"}, Namespaced: true,
		New:     func() runtime.Object { return &appsv1.DaemonSet{} },
		NewList: func() runtime.Object { return &appsv1.DaemonSetList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Generation: s.GenerationChanged,
		Table:      printers.DaemonSets,
	}
}

type daemonSetStrategy struct{}

// defaultDaemonSet applies apps/v1's SetDefaults_DaemonSet.
func defaultDaemonSet(ds *appsv1.DaemonSet) {
	s := &ds.Spec.UpdateStrategy
	if s.Type == "" {
		s.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if s.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if s.RollingUpdate == nil {
			s.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if s.RollingUpdate.MaxUnavailable == nil {
			one := intstr.FromInt32(1)
			s.RollingUpdate.MaxUnavailable = &one
		}
		if s.RollingUpdate.MaxSurge == nil {
			zero := intstr.FromInt32(0)
			s.RollingUpdate.MaxSurge = &zero
		}
	}
	if ds.Spec.RevisionHistoryLimit == nil {
		v := defaultRevisionHistoryLimit
		ds.Spec.RevisionHistoryLimit = &v
	}
	defaultPodTemplate(&ds.Spec.Template)
}

// templateGeneration reads the annotation; 0 when absent or unreadable.
func templateGeneration(ds *appsv1.DaemonSet) int64 {
	g, err := strconv.ParseInt(ds.Annotations[TemplateGenerationAnnotation], 10, 64)
	if err != nil {
		return 0
	}
	return g
}

func setTemplateGeneration(ds *appsv1.DaemonSet, g int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[TemplateGenerationAnnotation] = strconv.FormatInt(g, 10)
}

// PrepareForCreate clears status, applies defaults and starts the
// template generation at 1, whatever the client wrote.
func (daemonSetStrategy) PrepareForCreate(obj runtime.Object) {
	ds := obj.(*appsv1.DaemonSet)
	ds.Status = appsv1.DaemonSetStatus{}
	defaultDaemonSet(ds)
	setTemplateGeneration(ds, 1)
}

// PrepareForUpdate keeps the stored status and template generation, and
// moves the generation on when the template changed.
func (daemonSetStrategy) PrepareForUpdate(obj, old runtime.Object) {
	ds, o := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	ds.Status = o.Status
	defaultDaemonSet(ds)
	g := templateGeneration(o)
	if !apiequality.Semantic.DeepEqual(ds.Spec.Template, o.Spec.Template) {
		g++
	}
	setTemplateGeneration(ds, g)
}

// PrepareForStatusUpdate keeps the stored spec and template generation.
func (daemonSetStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	ds, o := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	ds.Spec = o.Spec
	if g, ok := o.Annotations[TemplateGenerationAnnotation]; ok {
		if ds.Annotations == nil {
			ds.Annotations = map[string]string{}
		}
		ds.Annotations[TemplateGenerationAnnotation] = g
	}
}

// Validate checks a new DaemonSet.
func (daemonSetStrategy) Validate(obj runtime.Object) field.ErrorList {
	ds := obj.(*appsv1.DaemonSet)
	errs := ValidateMetaCreate(&ds.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateDaemonSetSpec(&ds.Spec)...)
}

// ValidateUpdate: the selector is immutable, reported before the spec's
// own errors as kube does.
func (daemonSetStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	ds, o := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	errs := ValidateMetaUpdate(&ds.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(ds.Spec.Selector, o.Spec.Selector, specPath.Child("selector"))...)
	return append(errs, validateDaemonSetSpec(&ds.Spec)...)
}

// ValidateStatusUpdate checks a write to daemonsets/status.
func (daemonSetStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	ds, o := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	errs := ValidateMetaUpdate(&ds.ObjectMeta, &o.ObjectMeta)
	p := field.NewPath("status")
	s := ds.Status
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"currentNumberScheduled", int64(s.CurrentNumberScheduled)}, {"numberMisscheduled", int64(s.NumberMisscheduled)},
		{"desiredNumberScheduled", int64(s.DesiredNumberScheduled)}, {"numberReady", int64(s.NumberReady)},
		{"observedGeneration", s.ObservedGeneration}, {"updatedNumberScheduled", int64(s.UpdatedNumberScheduled)},
		{"numberAvailable", int64(s.NumberAvailable)}, {"numberUnavailable", int64(s.NumberUnavailable)},
	} {
		errs = append(errs, nonNegative(c.v, p.Child(c.name))...)
	}
	if s.CollisionCount != nil {
		errs = append(errs, nonNegative(int64(*s.CollisionCount), p.Child("collisionCount"))...)
	}
	if o.Status.CollisionCount != nil && (s.CollisionCount == nil || *s.CollisionCount < *o.Status.CollisionCount) {
		value := int32(0)
		if s.CollisionCount != nil {
			value = *s.CollisionCount
		}
		errs = append(errs, field.Invalid(p.Child("collisionCount"), value, "cannot be decremented"))
	}
	return errs
}

// GenerationChanged is true when the spec changed.
func (daemonSetStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*appsv1.DaemonSet).Spec, old.(*appsv1.DaemonSet).Spec)
}
