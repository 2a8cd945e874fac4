package registry

// ReplicationControllers: stored only (no controller makes their pods),
// with kube's defaults (one replica; selector and labels from the
// template's labels), validation, status and scale.

import (
	"strconv"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// replicationControllers is core/v1 replicationcontrollers.
func replicationControllers() *Resource {
	s := rcStrategy{}
	return &Resource{
		Version: "v1", Resource: "replicationcontrollers", Kind: "ReplicationController", ListKind: "ReplicationControllerList",
		Singular: "replicationcontroller", ShortNames: []string{"rc"}, Categories: []string{"all"}, Namespaced: true,
		New:      func() runtime.Object { return &corev1.ReplicationController{} },
		NewList:  func() runtime.Object { return &corev1.ReplicationControllerList{} },
		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
			"scale":  scaleSubresource(s.Scale, s.SetReplicas),
		},
		Generation: s.GenerationChanged,
		Table:      printers.ReplicationControllers,
		FieldSet:   s.FieldSet,
	}
}

type rcStrategy struct{}

// defaultRC is kube's SetDefaults_ReplicationController.
func defaultRC(rc *corev1.ReplicationController) {
	if t := rc.Spec.Template; t != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = t.Labels
		}
		if len(rc.Labels) == 0 {
			rc.Labels = t.Labels
		}
		defaultPodTemplate(t)
	}
	if rc.Spec.Replicas == nil {
		one := int32(1)
		rc.Spec.Replicas = &one
	}
}

func (rcStrategy) PrepareForCreate(obj runtime.Object) {
	rc := obj.(*corev1.ReplicationController)
	rc.Status = corev1.ReplicationControllerStatus{}
	defaultRC(rc)
}

func (rcStrategy) PrepareForUpdate(obj, old runtime.Object) {
	rc := obj.(*corev1.ReplicationController)
	rc.Status = old.(*corev1.ReplicationController).Status
	defaultRC(rc)
}

func (rcStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	obj.(*corev1.ReplicationController).Spec = old.(*corev1.ReplicationController).Spec
}

func (rcStrategy) Validate(obj runtime.Object) field.ErrorList {
	rc := obj.(*corev1.ReplicationController)
	errs := ValidateMetaCreate(&rc.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateRCSpec(&rc.Spec)...)
}

func (rcStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	rc := obj.(*corev1.ReplicationController)
	errs := ValidateMetaUpdate(&rc.ObjectMeta, &old.(*corev1.ReplicationController).ObjectMeta)
	return append(errs, validateRCSpec(&rc.Spec)...)
}

func (rcStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	rc := obj.(*corev1.ReplicationController)
	errs := ValidateMetaUpdate(&rc.ObjectMeta, &old.(*corev1.ReplicationController).ObjectMeta)
	s := rc.Status
	statusPath := field.NewPath("status")
	errs = append(errs, validateReplicaCounts(statusPath, map[string]int32{
		"replicas": s.Replicas, "fullyLabeledReplicas": s.FullyLabeledReplicas, "readyReplicas": s.ReadyReplicas, "availableReplicas": s.AvailableReplicas,
	})...)
	return append(errs, nonNegative(s.ObservedGeneration, statusPath.Child("observedGeneration"))...)
}

func (rcStrategy) GenerationChanged(obj, old runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(obj.(*corev1.ReplicationController).Spec, old.(*corev1.ReplicationController).Spec)
}

// FieldSet offers metadata and status.replicas, as kube-apiserver.
func (rcStrategy) FieldSet(obj runtime.Object) fields.Set {
	rc := obj.(*corev1.ReplicationController)
	return mergeFields(metaFields(rc, true), fields.Set{"status.replicas": strconv.Itoa(int(rc.Status.Replicas))})
}

func (rcStrategy) Scale(obj runtime.Object) *autoscalingv1.Scale {
	rc := obj.(*corev1.ReplicationController)
	return newScale(&rc.ObjectMeta, rc.Spec.Replicas, rc.Status.Replicas, &metav1.LabelSelector{MatchLabels: rc.Spec.Selector})
}

func (rcStrategy) SetReplicas(obj runtime.Object, replicas int32) {
	obj.(*corev1.ReplicationController).Spec.Replicas = &replicas
}

// validateRCSpec follows kube's ValidateReplicationControllerSpec.
func validateRCSpec(spec *corev1.ReplicationControllerSpec) field.ErrorList {
	errs := nonNegative(int64(spec.MinReadySeconds), specPath.Child("minReadySeconds"))
	sel := labels.Set(spec.Selector).AsSelector()
	if sel.Empty() {
		errs = append(errs, field.Required(specPath.Child("selector"), ""))
	}
	errs = append(errs, nonNegative(int64(replicasOr1(spec.Replicas)), specPath.Child("replicas"))...)
	if spec.Template == nil {
		return append(errs, field.Required(specPath.Child("template"), ""))
	}
	return append(errs, validateTemplateForSelector(spec.Template, sel, "ReplicationController")...)
}
