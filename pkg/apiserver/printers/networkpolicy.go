package printers

import (
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// NetworkPolicies is kube-apiserver's Table for networking.k8s.io/v1
// NetworkPolicies: NAME, POD-SELECTOR, AGE.
var NetworkPolicies = printer{columns: networkPolicyColumns, cells: networkPolicyCells}.table

var networkPolicyColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Pod-Selector", "string", networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"], 0),
	ageCol(),
}

func networkPolicyCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	np := obj.(*networkingv1.NetworkPolicy)
	return []interface{}{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), age(np.CreationTimestamp, now)}, nil
}
