package printers

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DaemonSets is kube-apiserver's Table for apps/v1 DaemonSets; wide adds
// CONTAINERS, IMAGES and SELECTOR.
var DaemonSets = printer{columns: daemonSetColumns, cells: daemonSetCells}.table

// ControllerRevisions is kube-apiserver's Table for apps/v1
// ControllerRevisions: NAME, CONTROLLER, REVISION, AGE.
var ControllerRevisions = printer{columns: controllerRevisionColumns, cells: controllerRevisionCells}.table

var daemonSetColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Desired", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["desiredNumberScheduled"], 0),
	col("Current", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["currentNumberScheduled"], 0),
	col("Ready", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["numberReady"], 0),
	col("Up-to-date", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["updatedNumberScheduled"], 0),
	col("Available", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["numberAvailable"], 0),
	col("Node Selector", "string", corev1.PodSpec{}.SwaggerDoc()["nodeSelector"], 0),
	ageCol(),
	col("Containers", "string", containersDoc, 1),
	col("Images", "string", imagesDoc, 1),
	col("Selector", "string", appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"], 1),
}

// daemonSetCells: the counters are integers; NODE SELECTOR is the
// template's nodeSelector as labels ("<none>" when empty); the selector
// is printed as written.
func daemonSetCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	ds := obj.(*appsv1.DaemonSet)
	s := ds.Status
	names, images := containerCells(ds.Spec.Template.Spec.Containers)
	return []interface{}{
		ds.Name, int64(s.DesiredNumberScheduled), int64(s.CurrentNumberScheduled), int64(s.NumberReady),
		int64(s.UpdatedNumberScheduled), int64(s.NumberAvailable), labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector),
		age(ds.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(ds.Spec.Selector),
	}, nil
}

var controllerRevisionColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Controller", "string", "Controller of the object", 0),
	col("Revision", "string", appsv1.ControllerRevision{}.SwaggerDoc()["revision"], 0),
	ageCol(),
}

// controllerRevisionCells: CONTROLLER is kind.group/name of the
// controlling owner ("daemonset.apps/agent"), "<none>" without one; the
// revision is an integer.
func controllerRevisionCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	r := obj.(*appsv1.ControllerRevision)
	controller := "<none>"
	if ref := metav1.GetControllerOf(r); ref != nil {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			return nil, fmt.Errorf("controllerrevision %s: %w", r.Name, err)
		}
		controller = strings.ToLower(gv.WithKind(ref.Kind).GroupKind().String()) + "/" + ref.Name
	}
	return []interface{}{r.Name, controller, r.Revision, age(r.CreationTimestamp, now)}, nil
}
