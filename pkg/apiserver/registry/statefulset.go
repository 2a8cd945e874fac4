package registry

// StatefulSets: kube's defaults (1 replica, OrderedReady, RollingUpdate
// with partition 0 and maxUnavailable 1, 10 revisions kept, PVCs retained),
// validation with kube's messages, generation on spec changes, and the
// scale view.

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// statefulSets is apps/v1 statefulsets.
func statefulSets() *Resource {
	s := statefulSetStrategy{}
	return &Resource{
		Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", ListKind: "StatefulSetList", Singular: "statefulset",
		ShortNames: []string{"sts"}, Categories: []string{"all"}, Namespaced: true,
		New:     func() runtime.Object { return &appsv1.StatefulSet{} },
		NewList: func() runtime.Object { return &appsv1.StatefulSetList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
			"scale":  scaleSubresource(s.Scale, s.SetReplicas),
		},
		Generation: s.GenerationChanged,
		Table:      printers.StatefulSets,
	}
}

type statefulSetStrategy struct{}

// defaultStatefulSet applies apps/v1's SetDefaults_StatefulSet.
func defaultStatefulSet(s *appsv1.StatefulSet) {
	spec := &s.Spec
	if spec.PodManagementPolicy == "" {
		spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if spec.UpdateStrategy.Type == "" {
		spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
	}
	if spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType {
		if spec.UpdateStrategy.RollingUpdate == nil {
			spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
		ru := spec.UpdateStrategy.RollingUpdate
		if ru.Partition == nil {
			zero := int32(0)
			ru.Partition = &zero
		}
		if ru.MaxUnavailable == nil {
			one := intstr.FromInt32(1)
			ru.MaxUnavailable = &one
		}
	}
	if spec.PersistentVolumeClaimRetentionPolicy == nil {
		spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	p := spec.PersistentVolumeClaimRetentionPolicy
	if p.WhenDeleted == "" {
		p.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if p.WhenScaled == "" {
		p.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if spec.Replicas == nil {
		one := int32(1)
		spec.Replicas = &one
	}
	if spec.RevisionHistoryLimit == nil {
		v := defaultRevisionHistoryLimit
		spec.RevisionHistoryLimit = &v
	}
	for i := range spec.VolumeClaimTemplates {
		defaultClaimTemplate(&spec.VolumeClaimTemplates[i])
	}
	defaultPodTemplate(&spec.Template)
}

// defaultClaimTemplate gives a claim template what kube stores for it:
// its apiVersion and kind, Filesystem volume mode and a Pending phase.
func defaultClaimTemplate(c *corev1.PersistentVolumeClaim) {
	c.APIVersion, c.Kind = "v1", "PersistentVolumeClaim"
	if c.Spec.VolumeMode == nil {
		mode := corev1.PersistentVolumeFilesystem
		c.Spec.VolumeMode = &mode
	}
	if c.Status.Phase == "" {
		c.Status.Phase = corev1.ClaimPending
	}
}

// PrepareForCreate clears status and applies defaults.
func (statefulSetStrategy) PrepareForCreate(obj runtime.Object) {
	s := obj.(*appsv1.StatefulSet)
	s.Status = appsv1.StatefulSetStatus{}
	defaultStatefulSet(s)
}

// PrepareForUpdate keeps the stored status.
func (statefulSetStrategy) PrepareForUpdate(obj, old runtime.Object) {
	s := obj.(*appsv1.StatefulSet)
	s.Status = old.(*appsv1.StatefulSet).Status
	defaultStatefulSet(s)
}

// PrepareForStatusUpdate keeps the stored spec.
func (statefulSetStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*appsv1.StatefulSet).Spec = old.(*appsv1.StatefulSet).Spec
}

// Validate checks a new StatefulSet.
func (statefulSetStrategy) Validate(obj runtime.Object) field.ErrorList {
	s := obj.(*appsv1.StatefulSet)
	errs := ValidateMetaCreate(&s.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateStatefulSetSpec(&s.Spec)...)
}

// ValidateUpdate: only replicas, ordinals, template, updateStrategy, the
// PVC retention policy, minReadySeconds and revisionHistoryLimit may
// change; kube 1.37 names each other changed field as immutable.
func (statefulSetStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	s, o := obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet)
	errs := ValidateMetaUpdate(&s.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, validateStatefulSetSpec(&s.Spec)...)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.Spec.Selector, o.Spec.Selector, specPath.Child("selector"))...)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.Spec.ServiceName, o.Spec.ServiceName, specPath.Child("serviceName"))...)
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.Spec.PodManagementPolicy, o.Spec.PodManagementPolicy, specPath.Child("podManagementPolicy"))...)
	if !apiequality.Semantic.DeepEqual(s.Spec.VolumeClaimTemplates, o.Spec.VolumeClaimTemplates) {
		errs = append(errs, field.Forbidden(specPath.Child("volumeClaimTemplates"), "field is immutable"))
	}
	return errs
}

// ValidateStatusUpdate checks a write to statefulsets/status.
func (statefulSetStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	s, o := obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet)
	errs := ValidateMetaUpdate(&s.ObjectMeta, &o.ObjectMeta)
	statusPath := field.NewPath("status")
	st := s.Status
	errs = append(errs, nonNegative(st.ObservedGeneration, statusPath.Child("observedGeneration"))...)
	errs = append(errs, validateReplicaCounts(statusPath, map[string]int32{
		"replicas": st.Replicas, "readyReplicas": st.ReadyReplicas, "availableReplicas": st.AvailableReplicas,
		"updatedReplicas": st.UpdatedReplicas,
	})...)
	errs = append(errs, nonNegative(int64(st.CurrentReplicas), statusPath.Child("currentReplicas"))...)
	if st.CurrentReplicas > st.Replicas {
		errs = append(errs, field.Invalid(statusPath.Child("currentReplicas"), st.CurrentReplicas, "cannot be greater than status.replicas"))
	}
	if st.CollisionCount != nil {
		errs = append(errs, nonNegative(int64(*st.CollisionCount), statusPath.Child("collisionCount"))...)
		if o.Status.CollisionCount != nil && *st.CollisionCount < *o.Status.CollisionCount {
			errs = append(errs, field.Invalid(statusPath.Child("collisionCount"), *st.CollisionCount, "cannot be decremented"))
		}
	}
	return errs
}

// GenerationChanged is true when the spec changed.
func (statefulSetStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*appsv1.StatefulSet).Spec, old.(*appsv1.StatefulSet).Spec)
}

// Scale returns the StatefulSet's Scale.
func (statefulSetStrategy) Scale(obj runtime.Object) *autoscalingv1.Scale {
	s := obj.(*appsv1.StatefulSet)
	return newScale(&s.ObjectMeta, s.Spec.Replicas, s.Status.Replicas, s.Spec.Selector)
}

// SetReplicas sets spec.replicas.
func (statefulSetStrategy) SetReplicas(obj runtime.Object, replicas int32) {
	obj.(*appsv1.StatefulSet).Spec.Replicas = &replicas
}
