package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func namespaceCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	ns := obj.(*corev1.Namespace)
	return []interface{}{ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp, now)}, nil
}
