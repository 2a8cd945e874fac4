package printers

import (
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// StorageClasses is kube-apiserver's Table for storage.k8s.io/v1
// StorageClasses: NAME (with " (default)" for the default class),
// PROVISIONER, RECLAIMPOLICY, VOLUMEBINDINGMODE, ALLOWVOLUMEEXPANSION
// (a boolean cell in a "string" column), AGE.
var StorageClasses = printer{columns: storageClassColumns, cells: storageClassCells}.table

var storageClassColumns = func() []metav1.TableColumnDefinition {
	doc := storagev1.StorageClass{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameCol(),
		col("Provisioner", "string", doc["provisioner"], 0),
		col("ReclaimPolicy", "string", doc["reclaimPolicy"], 0),
		col("VolumeBindingMode", "string", doc["volumeBindingMode"], 0),
		col("AllowVolumeExpansion", "string", doc["allowVolumeExpansion"], 0),
		ageCol(),
	}
}()

// The annotations that mark the default class, current and beta.
const (
	defaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

func storageClassCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	sc := obj.(*storagev1.StorageClass)
	name := sc.Name
	if sc.Annotations[defaultStorageClassAnnotation] == "true" || sc.Annotations[betaDefaultStorageClassAnnotation] == "true" {
		name += " (default)"
	}
	reclaim := "Delete"
	if sc.ReclaimPolicy != nil {
		reclaim = string(*sc.ReclaimPolicy)
	}
	mode := string(storagev1.VolumeBindingImmediate)
	if sc.VolumeBindingMode != nil {
		mode = string(*sc.VolumeBindingMode)
	}
	expand := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	return []interface{}{name, sc.Provisioner, reclaim, mode, expand, age(sc.CreationTimestamp, now)}, nil
}
