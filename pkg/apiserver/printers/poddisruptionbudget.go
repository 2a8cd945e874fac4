package printers

import (
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PodDisruptionBudgets is kube-apiserver's Table for policy/v1
// PodDisruptionBudgets: NAME, MIN AVAILABLE, MAX UNAVAILABLE, ALLOWED
// DISRUPTIONS, AGE, with no wide columns.
var PodDisruptionBudgets = printer{columns: pdbColumns, cells: pdbCells}.table

var pdbColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Min Available", "string", "The minimum number of pods that must be available.", 0),
	col("Max Unavailable", "string", "The maximum number of pods that may be unavailable.", 0),
	col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time.", 0),
	ageCol(),
}

// pdbCells shows N/A for whichever of the two bounds is unset.
func pdbCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	pdb := obj.(*policyv1.PodDisruptionBudget)
	minAvailable, maxUnavailable := "N/A", "N/A"
	if v := pdb.Spec.MinAvailable; v != nil {
		minAvailable = v.String()
	}
	if v := pdb.Spec.MaxUnavailable; v != nil {
		maxUnavailable = v.String()
	}
	return []interface{}{pdb.Name, minAvailable, maxUnavailable, int64(pdb.Status.DisruptionsAllowed), age(pdb.CreationTimestamp, now)}, nil
}
