package printers

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func replicas(p *int32) int64 {
	if p == nil {
		return 0
	}
	return int64(*p)
}

// replicaSetCells: DESIRED, CURRENT and READY are integers; the selector is
// printed as written (metav1.FormatLabelSelector).
func replicaSetCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	rs := obj.(*appsv1.ReplicaSet)
	names, images := containerCells(rs.Spec.Template.Spec.Containers)
	return []interface{}{
		rs.Name, replicas(rs.Spec.Replicas), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas),
		age(rs.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(rs.Spec.Selector),
	}, nil
}

// deploymentCells: READY is "ready/desired"; UP-TO-DATE and AVAILABLE are
// integers although their columns say string, as in kube-apiserver. The
// selector is the parsed selector's canonical string.
func deploymentCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	d := obj.(*appsv1.Deployment)
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s: %w", d.Name, err)
	}
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	return []interface{}{
		d.Name, fmt.Sprintf("%d/%d", int64(d.Status.ReadyReplicas), replicas(d.Spec.Replicas)),
		int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas),
		age(d.CreationTimestamp, now),
		names, images, selector.String(),
	}, nil
}
