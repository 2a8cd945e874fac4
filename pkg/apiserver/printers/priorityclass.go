package printers

import (
	"time"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PriorityClasses is kube-apiserver's Table for scheduling.k8s.io/v1
// PriorityClasses: NAME, VALUE, GLOBAL-DEFAULT, AGE, PREEMPTIONPOLICY,
// with an integer and a boolean cell.
var PriorityClasses = printer{columns: priorityClassColumns, cells: priorityClassCells}.table

var priorityClassColumns = func() []metav1.TableColumnDefinition {
	doc := schedulingv1.PriorityClass{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameCol(),
		col("Value", "integer", doc["value"], 0),
		col("Global-Default", "boolean", doc["globalDefault"], 0),
		ageCol(),
		col("PreemptionPolicy", "string", doc["preemptionPolicy"], 0),
	}
}()

func priorityClassCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	pc := obj.(*schedulingv1.PriorityClass)
	policy := ""
	if pc.PreemptionPolicy != nil {
		policy = string(*pc.PreemptionPolicy)
	}
	return []interface{}{pc.Name, int64(pc.Value), pc.GlobalDefault, age(pc.CreationTimestamp, now), policy}, nil
}
