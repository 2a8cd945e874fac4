package printers

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Leases is kube-apiserver's Table for coordination.k8s.io/v1 Leases:
// NAME, HOLDER, AGE, with no wide columns.
var Leases = printer{columns: leaseColumns, cells: leaseCells}.table

var leaseColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Holder", "string", coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"], 0),
	ageCol(),
}

// leaseCells leaves HOLDER empty for a lease nobody holds.
func leaseCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	l := obj.(*coordinationv1.Lease)
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	return []interface{}{l.Name, holder, age(l.CreationTimestamp, now)}, nil
}
