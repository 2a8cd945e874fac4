package cli

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// podTemplateOf is the pod template of a workload (nil for other kinds);
// a ReplicationController without one gets an empty template, as kubectl
// gives it before changing it.
func podTemplateOf(obj runtime.Object) *corev1.PodTemplateSpec {
	switch t := obj.(type) {
	case *appsv1.Deployment:
		return &t.Spec.Template
	case *appsv1.ReplicaSet:
		return &t.Spec.Template
	case *appsv1.StatefulSet:
		return &t.Spec.Template
	case *appsv1.DaemonSet:
		return &t.Spec.Template
	case *batchv1.Job:
		return &t.Spec.Template
	case *batchv1.CronJob:
		return &t.Spec.JobTemplate.Spec.Template
	case *corev1.ReplicationController:
		if t.Spec.Template == nil {
			t.Spec.Template = &corev1.PodTemplateSpec{}
		}
		return t.Spec.Template
	}
	return nil
}
