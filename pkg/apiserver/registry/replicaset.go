package registry

// ReplicaSets: 1 replica by default, the selector must match the
// template and never changes, generation moves with the spec, and the
// scale view.

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// replicaSets is apps/v1 replicasets.
func replicaSets() *Resource {
	s := replicaSetStrategy{}
	return &Resource{
		Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", ListKind: "ReplicaSetList", Singular: "replicaset",
		ShortNames: []string{"rs"}, Categories: []string{"all"}, Namespaced: true,
		New:     func() runtime.Object { return &appsv1.ReplicaSet{} },
		NewList: func() runtime.Object { return &appsv1.ReplicaSetList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
			"scale":  scaleSubresource(s.Scale, s.SetReplicas),
		},
		Generation: s.GenerationChanged,
		Table:      printers.ReplicaSets,
		FieldSet:   s.FieldSet,
	}
}

type replicaSetStrategy struct{}

func defaultReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		one := int32(1)
		rs.Spec.Replicas = &one
	}
	defaultPodTemplate(&rs.Spec.Template)
}

// PrepareForCreate clears status and applies defaults.
func (replicaSetStrategy) PrepareForCreate(obj runtime.Object) {
	rs := obj.(*appsv1.ReplicaSet)
	rs.Status = appsv1.ReplicaSetStatus{}
	defaultReplicaSet(rs)
}

// PrepareForUpdate keeps the stored status.
func (replicaSetStrategy) PrepareForUpdate(obj, old runtime.Object) {
	rs := obj.(*appsv1.ReplicaSet)
	rs.Status = old.(*appsv1.ReplicaSet).Status
	defaultReplicaSet(rs)
}

// PrepareForStatusUpdate keeps the stored spec (metadata may change, as in
// kube-apiserver's ReplicaSet status strategy).
func (replicaSetStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*appsv1.ReplicaSet).Spec = old.(*appsv1.ReplicaSet).Spec
}

// Validate checks a new ReplicaSet.
func (replicaSetStrategy) Validate(obj runtime.Object) field.ErrorList {
	rs := obj.(*appsv1.ReplicaSet)
	errs := ValidateMetaCreate(&rs.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateReplicaSetSpec(&rs.Spec)...)
}

// ValidateUpdate also forbids changing the selector.
func (replicaSetStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	rs, o := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
	errs := ValidateMetaUpdate(&rs.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, validateReplicaSetSpec(&rs.Spec)...)
	return append(errs, apimachineryvalidation.ValidateImmutableField(rs.Spec.Selector, o.Spec.Selector, specPath.Child("selector"))...)
}

// ValidateStatusUpdate checks a write to replicasets/status.
func (replicaSetStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	rs, o := obj.(*appsv1.ReplicaSet), old.(*appsv1.ReplicaSet)
	errs := ValidateMetaUpdate(&rs.ObjectMeta, &o.ObjectMeta)
	statusPath := field.NewPath("status")
	s := rs.Status
	errs = append(errs, validateReplicaCounts(statusPath, map[string]int32{
		"replicas": s.Replicas, "fullyLabeledReplicas": s.FullyLabeledReplicas, "readyReplicas": s.ReadyReplicas, "availableReplicas": s.AvailableReplicas,
	})...)
	return append(errs, nonNegative(s.ObservedGeneration, statusPath.Child("observedGeneration"))...)
}

// GenerationChanged is true when the spec changed.
func (replicaSetStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*appsv1.ReplicaSet).Spec, old.(*appsv1.ReplicaSet).Spec)
}

// FieldSet offers metadata and status.replicas, as kube-apiserver.
func (replicaSetStrategy) FieldSet(obj runtime.Object) fields.Set {
	rs := obj.(*appsv1.ReplicaSet)
	return mergeFields(metaFields(rs, true), fields.Set{
		"status.replicas": strconv.Itoa(int(rs.Status.Replicas)),
	})
}

// Scale returns the ReplicaSet's Scale.
func (replicaSetStrategy) Scale(obj runtime.Object) *autoscalingv1.Scale {
	rs := obj.(*appsv1.ReplicaSet)
	return newScale(&rs.ObjectMeta, rs.Spec.Replicas, rs.Status.Replicas, rs.Spec.Selector)
}

// SetReplicas sets spec.replicas.
func (replicaSetStrategy) SetReplicas(obj runtime.Object, replicas int32) {
	obj.(*appsv1.ReplicaSet).Spec.Replicas = &replicas
}

// validateReplicaSetSpec follows kube's ValidateReplicaSetSpec order.
func validateReplicaSetSpec(spec *appsv1.ReplicaSetSpec) field.ErrorList {
	errs := nonNegative(int64(replicasOr1(spec.Replicas)), specPath.Child("replicas"))
	errs = append(errs, nonNegative(int64(spec.MinReadySeconds), specPath.Child("minReadySeconds"))...)
	return append(errs, validateSelectorAndTemplate(spec.Selector, &spec.Template, "ReplicaSet")...)
}
