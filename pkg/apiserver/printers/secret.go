package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Secrets is the Table of core/v1 secrets: NAME TYPE DATA AGE.
var Secrets = printer{columns: secretColumns, cells: secretCells}.table

var secretColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Type", "string", corev1.Secret{}.SwaggerDoc()["type"], 0),
	col("Data", "string", corev1.Secret{}.SwaggerDoc()["data"], 0),
	ageCol(),
}

// secretCells: DATA is the number of data keys, an integer in a "string"
// column, as kube-apiserver does.
func secretCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	s := obj.(*corev1.Secret)
	return []interface{}{s.Name, string(s.Type), int64(len(s.Data)), age(s.CreationTimestamp, now)}, nil
}
