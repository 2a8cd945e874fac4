package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ConfigMaps is the Table of core/v1 configmaps: NAME DATA AGE.
var ConfigMaps = printer{columns: configMapColumns, cells: configMapCells}.table

var configMapColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Data", "string", corev1.ConfigMap{}.SwaggerDoc()["data"], 0),
	ageCol(),
}

// configMapCells: DATA counts the keys of data and binaryData together,
// as an integer in a "string" column, as kube-apiserver does.
func configMapCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	cm := obj.(*corev1.ConfigMap)
	return []interface{}{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), age(cm.CreationTimestamp, now)}, nil
}
