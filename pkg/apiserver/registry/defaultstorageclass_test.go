package registry

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func storageClass(name string, created int64, annotations map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: name, Annotations: annotations, CreationTimestamp: metav1.NewTime(time.Unix(created, 0))},
		Provisioner: "example.com/disk",
	}
}

func claimNamed(name string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: objMeta(name, "default"), Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: resources("storage", "1Gi")},
	}}
}

func TestDefaultStorageClass(t *testing.T) {
	store := openTestStore(t)
	r := persistentVolumeClaims(Options{Store: store})
	classOf := func(pvc *corev1.PersistentVolumeClaim) string {
		t.Helper()
		if err := admitCreate(t, r, pvc); err != nil {
			t.Fatal(err)
		}
		if pvc.Spec.StorageClassName == nil {
			return "<nil>"
		}
		return *pvc.Spec.StorageClassName
	}
	if got := classOf(claimNamed("none")); got != "<nil>" {
		t.Errorf("no classes: %s", got)
	}

	scs := storageClasses()
	isDefault := map[string]string{IsDefaultStorageClassAnnotation: "true"}
	storeObject(t, store, scs, "", "plain", storageClass("plain", 300, nil))
	storeObject(t, store, scs, "", "not-default", storageClass("not-default", 300, map[string]string{IsDefaultStorageClassAnnotation: "false"}))
	storeObject(t, store, scs, "", "old", storageClass("old", 100, isDefault))
	if got := classOf(claimNamed("one")); got != "old" {
		t.Errorf("one default: %s", got)
	}
	// Several defaults: the newest, then the first by name.
	storeObject(t, store, scs, "", "zz-new", storageClass("zz-new", 200, isDefault))
	storeObject(t, store, scs, "", "beta-new", storageClass("beta-new", 200, map[string]string{"storageclass.beta.kubernetes.io/is-default-class": "true"}))
	if got := classOf(claimNamed("two")); got != "beta-new" {
		t.Errorf("several defaults: %s, want beta-new", got)
	}

	// A claim that names a class, even "", or the old annotation, keeps it.
	empty := claimNamed("empty")
	empty.Spec.StorageClassName = ptr("")
	if got := classOf(empty); got != "" {
		t.Errorf(`class "": %s`, got)
	}
	named := claimNamed("named")
	named.Spec.StorageClassName = ptr("plain")
	if got := classOf(named); got != "plain" {
		t.Errorf("named class: %s", got)
	}
	annotated := claimNamed("annotated")
	annotated.Annotations = map[string]string{"volume.beta.kubernetes.io/storage-class": "plain"}
	if got := classOf(annotated); got != "<nil>" {
		t.Errorf("beta annotation: %s", got)
	}
}
