package crd

import (
	"slices"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// cleanupFirst is how a CRD goes away: a delete marks it Terminating and
// adds CleanupFinalizer, so it stays until the Controller has deleted its
// custom resources and removed the finalizer, as in kube-apiserver.
type cleanupFirst struct{}

func (cleanupFirst) BeginDelete(obj runtime.Object, _ *metav1.DeleteOptions, now time.Time) (changed, keep bool, err error) {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	if crd.DeletionTimestamp != nil {
		return false, true, nil
	}
	// No deletionGracePeriodSeconds: kube-apiserver sets none on a CRD.
	t := metav1.NewTime(now)
	crd.DeletionTimestamp = &t
	if !slices.Contains(crd.Finalizers, CleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, CleanupFinalizer)
	}
	apihelpers.SetCRDCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue,
		Reason: "InstanceDeletionInProgress", Message: "CustomResource deletion is in progress",
	})
	return true, true, nil
}

// Released: no finalizer is left.
func (cleanupFirst) Released(obj runtime.Object) bool {
	return len(obj.(*apiextensionsv1.CustomResourceDefinition).Finalizers) == 0
}
