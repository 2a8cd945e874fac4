package printers

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// StatefulSets is kube-apiserver's Table for apps/v1 StatefulSets: NAME,
// READY ("ready/desired"), AGE; wide adds CONTAINERS and IMAGES.
var StatefulSets = printer{columns: statefulSetColumns, cells: statefulSetCells}.table

var statefulSetColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Ready", "string", "Number of the pod with ready state", 0),
	ageCol(),
	col("Containers", "string", containersDoc, 1),
	col("Images", "string", imagesDoc, 1),
}

func statefulSetCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	s := obj.(*appsv1.StatefulSet)
	names, images := containerCells(s.Spec.Template.Spec.Containers)
	return []interface{}{
		s.Name, fmt.Sprintf("%d/%d", int64(s.Status.ReadyReplicas), replicas(s.Spec.Replicas)),
		age(s.CreationTimestamp, now), names, images,
	}, nil
}
