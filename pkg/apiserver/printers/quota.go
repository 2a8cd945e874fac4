package printers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// ResourceQuotas, LimitRanges, PodTemplates and ReplicationControllers
// are kube-apiserver's Tables for those core kinds. LimitRanges have no
// columns of their own in kube-apiserver: the default Table.
var (
	ResourceQuotas         = printer{columns: quotaColumns, cells: quotaCells}.table
	LimitRanges            = Default
	PodTemplates           = printer{columns: podTemplateColumns, cells: podTemplateCells}.table
	ReplicationControllers = printer{columns: rcColumns, cells: rcCells}.table
)

var quotaColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume.", 0),
	col("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.", 0),
	ageCol(),
}

// quotaCells lists "resource: used/hard" for each resource in
// status.hard, sorted, limits.* under LIMIT and the rest under REQUEST.
func quotaCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	q := obj.(*corev1.ResourceQuota)
	names := make([]string, 0, len(q.Status.Hard))
	for name := range q.Status.Hard {
		names = append(names, string(name))
	}
	sort.Strings(names)
	var request, limit []string
	for _, name := range names {
		used, hard := q.Status.Used[corev1.ResourceName(name)], q.Status.Hard[corev1.ResourceName(name)]
		cell := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
		if strings.HasPrefix(name, "limits.") {
			limit = append(limit, cell)
		} else {
			request = append(request, cell)
		}
	}
	return []interface{}{q.Name, strings.Join(request, ", "), strings.Join(limit, ", "), age(q.CreationTimestamp, now)}, nil
}

var podTemplateColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Containers", "string", containersDoc, 0),
	col("Images", "string", imagesDoc, 0),
	col("Pod Labels", "string", "The labels for the pod template.", 0),
}

func podTemplateCells(obj runtime.Object, _ time.Time) ([]interface{}, error) {
	t := obj.(*corev1.PodTemplate)
	names, images := containerCells(t.Template.Spec.Containers)
	return []interface{}{t.Name, names, images, labels.FormatLabels(t.Template.Labels)}, nil
}

var rcColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Desired", "integer", corev1.ReplicationControllerSpec{}.SwaggerDoc()["replicas"], 0),
	col("Current", "integer", corev1.ReplicationControllerStatus{}.SwaggerDoc()["replicas"], 0),
	col("Ready", "integer", corev1.ReplicationControllerStatus{}.SwaggerDoc()["readyReplicas"], 0),
	ageCol(),
	col("Containers", "string", containersDoc, 1),
	col("Images", "string", imagesDoc, 1),
	col("Selector", "string", corev1.ReplicationControllerSpec{}.SwaggerDoc()["selector"], 1),
}

func rcCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	rc := obj.(*corev1.ReplicationController)
	desired := int64(1)
	if rc.Spec.Replicas != nil {
		desired = int64(*rc.Spec.Replicas)
	}
	var containers []corev1.Container
	if rc.Spec.Template != nil {
		containers = rc.Spec.Template.Spec.Containers
	}
	names, images := containerCells(containers)
	return []interface{}{rc.Name, desired, int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas), age(rc.CreationTimestamp, now),
		names, images, labels.FormatLabels(rc.Spec.Selector)}, nil
}
