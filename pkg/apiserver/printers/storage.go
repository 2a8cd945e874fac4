package printers

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PersistentVolumeClaims and PersistentVolumes are kube-apiserver's
// Tables for the two core storage kinds; VOLUMEMODE is their one wide
// column.
var (
	PersistentVolumeClaims = printer{columns: pvcColumns, cells: pvcCells}.table
	PersistentVolumes      = printer{columns: pvColumns, cells: pvCells}.table
)

var pvcColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Status", "string", corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()["phase"], 0),
	col("Volume", "string", corev1.PersistentVolumeClaimSpec{}.SwaggerDoc()["volumeName"], 0),
	col("Capacity", "string", corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()["capacity"], 0),
	col("Access Modes", "string", corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()["accessModes"], 0),
	col("StorageClass", "string", "StorageClass of the pvc", 0),
	col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc", 0),
	ageCol(),
	col("VolumeMode", "string", corev1.PersistentVolumeClaimSpec{}.SwaggerDoc()["volumeMode"], 1),
}

var pvColumns = []metav1.TableColumnDefinition{
	nameCol(),
	col("Capacity", "string", corev1.PersistentVolumeSpec{}.SwaggerDoc()["capacity"], 0),
	col("Access Modes", "string", corev1.PersistentVolumeSpec{}.SwaggerDoc()["accessModes"], 0),
	col("Reclaim Policy", "string", corev1.PersistentVolumeSpec{}.SwaggerDoc()["persistentVolumeReclaimPolicy"], 0),
	col("Status", "string", corev1.PersistentVolumeStatus{}.SwaggerDoc()["phase"], 0),
	col("Claim", "string", corev1.PersistentVolumeSpec{}.SwaggerDoc()["claimRef"], 0),
	col("StorageClass", "string", "StorageClass of the pv", 0),
	col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv", 0),
	col("Reason", "string", corev1.PersistentVolumeStatus{}.SwaggerDoc()["reason"], 0),
	ageCol(),
	col("VolumeMode", "string", corev1.PersistentVolumeSpec{}.SwaggerDoc()["volumeMode"], 1),
}

// pvcCells: a claim being deleted shows Terminating; capacity and access
// modes show only once it is bound to a volume.
func pvcCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	phase := string(pvc.Status.Phase)
	if pvc.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	capacity, modes := "", ""
	if pvc.Spec.VolumeName != "" {
		modes = accessModes(pvc.Status.AccessModes)
		q := pvc.Status.Capacity[corev1.ResourceStorage]
		capacity = q.String()
	}
	return []interface{}{pvc.Name, phase, pvc.Spec.VolumeName, capacity, modes, pvcClass(pvc),
		unsetOr(pvc.Spec.VolumeAttributesClassName), age(pvc.CreationTimestamp, now), volumeMode(pvc.Spec.VolumeMode)}, nil
}

func pvCells(obj runtime.Object, now time.Time) ([]interface{}, error) {
	pv := obj.(*corev1.PersistentVolume)
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	phase := string(pv.Status.Phase)
	if pv.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	q := pv.Spec.Capacity[corev1.ResourceStorage]
	class := pv.Spec.StorageClassName
	if class == "" {
		class = pv.Annotations[corev1.BetaStorageClassAnnotation]
	}
	return []interface{}{pv.Name, q.String(), accessModes(pv.Spec.AccessModes), string(pv.Spec.PersistentVolumeReclaimPolicy),
		phase, claim, class, unsetOr(pv.Spec.VolumeAttributesClassName), pv.Status.Reason,
		age(pv.CreationTimestamp, now), volumeMode(pv.Spec.VolumeMode)}, nil
}

// pvcClass is the claim's class: the field, else the beta annotation.
func pvcClass(pvc *corev1.PersistentVolumeClaim) string {
	if c := pvc.Spec.StorageClassName; c != nil {
		return *c
	}
	return pvc.Annotations[corev1.BetaStorageClassAnnotation]
}

func unsetOr(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}

func volumeMode(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

// accessModes is kube's short form (RWO,ROX,RWX,RWOP), each mode once,
// in that order.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	has := map[corev1.PersistentVolumeAccessMode]bool{}
	for _, m := range modes {
		has[m] = true
	}
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		if has[m.mode] {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}
