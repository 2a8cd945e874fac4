package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ServiceAccounts is the Table of core/v1 serviceaccounts. kube-apiserver
// 1.37 prints NAME AGE only: the SECRETS column went when token Secrets
// stopped being made for every ServiceAccount.
var ServiceAccounts = printer{columns: serviceAccountColumns, cells: serviceAccountCells}.table

var serviceAccountColumns = []metav1.TableColumnDefinition{
	nameCol(),
	ageCol(),
}

func serviceAccountCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	sa := obj.(*corev1.ServiceAccount)
	return []interface{}{sa.Name, age(sa.CreationTimestamp, now)}, nil
}
