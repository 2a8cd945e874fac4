package printers

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The reference's PVC Table (section 17), and a claim being deleted.
func TestPersistentVolumeClaimTable(t *testing.T) {
	fs := corev1.PersistentVolumeFilesystem
	pvc := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", CreationTimestamp: created},
		Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: &fs}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	gone := pvc.DeepCopy()
	gone.DeletionTimestamp = &created
	list := &corev1.PersistentVolumeClaimList{Items: []corev1.PersistentVolumeClaim{pvc, *gone}}
	table, err := PersistentVolumeClaims(list, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name/string/0/name", "Status/string/0", "Volume/string/0", "Capacity/string/0", "Access Modes/string/0",
		"StorageClass/string/0", "VolumeAttributesClass/string/0", "Age/string/0", "VolumeMode/string/1"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	checkDescriptions(t, table.ColumnDefinitions, map[string]string{
		"Status": "phase represents the current phase of PersistentVolumeClaim.",
		"Volume": "volumeName is the binding reference to the PersistentVolume ",
	})
	if got := cellsJSON(t, table.Rows[0]); got != `["data","Pending","","","","","\u003cunset\u003e","2s","Filesystem"]` {
		t.Errorf("cells = %s", got)
	}
	if got := cellsJSON(t, table.Rows[1]); got != `["data","Terminating","","","","","\u003cunset\u003e","2s","Filesystem"]` {
		t.Errorf("cells = %s", got)
	}
}

func TestPersistentVolumeTable(t *testing.T) {
	fs := corev1.PersistentVolumeFilesystem
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1", CreationTimestamp: created},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")},
			VolumeMode:                    &fs,
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef:                      &corev1.ObjectReference{Namespace: "default", Name: "data"},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	}
	table, err := PersistentVolumes(pv, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["pv-1","5Gi","RWO,RWX","Retain","Bound","default/data","","\u003cunset\u003e","","2s","Filesystem"]` {
		t.Errorf("cells = %s", got)
	}
}

// The reference's quota Table (section 19: no status yet), and one with
// a status.
func TestResourceQuotaTable(t *testing.T) {
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "compute", CreationTimestamp: created}}
	table, err := ResourceQuotas(q, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Name/string/0/name", "Request/string/0", "Limit/string/0", "Age/string/0"}
	if got := header(table.ColumnDefinitions); !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["compute","","","2s"]` {
		t.Errorf("cells = %s", got)
	}
	q.Status.Hard = corev1.ResourceList{"pods": resource.MustParse("2"), "requests.cpu": resource.MustParse("1"), "limits.memory": resource.MustParse("1Gi")}
	q.Status.Used = corev1.ResourceList{"pods": resource.MustParse("1")}
	table, _ = ResourceQuotas(q, now)
	if got := cellsJSON(t, table.Rows[0]); got != `["compute","pods: 1/2, requests.cpu: 0/1","limits.memory: 0/1Gi","2s"]` {
		t.Errorf("cells = %s", got)
	}
}

func TestReplicationControllerAndPodTemplateTables(t *testing.T) {
	three := int32(3)
	tpl := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "old"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	rc := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "old", CreationTimestamp: created},
		Spec: corev1.ReplicationControllerSpec{Replicas: &three, Selector: map[string]string{"app": "old"}, Template: tpl}}
	table, err := ReplicationControllers(rc, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["old",3,0,0,"2s","c","nginx","app=old"]` {
		t.Errorf("rc cells = %s", got)
	}
	pt := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tpl", CreationTimestamp: created}, Template: *tpl}
	table, err = PodTemplates(pt, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["tpl","c","nginx","app=old"]` {
		t.Errorf("podtemplate cells = %s", got)
	}
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults", CreationTimestamp: created}}
	table, err = LimitRanges(lr, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := cellsJSON(t, table.Rows[0]); got != `["defaults","2026-11-29T17:29:58Z"]` {
		t.Errorf("limitrange cells = %s", got)
	}
}
