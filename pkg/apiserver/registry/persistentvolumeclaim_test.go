package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func dataClaim() *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: objMeta("data", "default"), Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
	}}
}

// The reference's answers (section 17).
func TestPVCCreate(t *testing.T) {
	s := pvcStrategy{}
	pvc := dataClaim()
	s.PrepareForCreate(pvc)
	if pvc.Status.Phase != corev1.ClaimPending || *pvc.Spec.VolumeMode != corev1.PersistentVolumeFilesystem ||
		len(pvc.Finalizers) != 1 || pvc.Finalizers[0] != "kubernetes.io/pvc-protection" {
		t.Fatalf("after create: %+v", pvc)
	}
	wantErrors(t, s.Validate(pvc))

	noModes := dataClaim()
	noModes.Spec.AccessModes = nil
	wantErrors(t, s.Validate(noModes), "spec.accessModes: Required value: at least 1 access mode is required")
	noStorage := dataClaim()
	noStorage.Spec.Resources.Requests = nil
	wantErrors(t, s.Validate(noStorage), "spec.resources[storage]: Required value")
}

func TestPVCSpecIsImmutable(t *testing.T) {
	s := pvcStrategy{}
	old := dataClaim()
	s.PrepareForCreate(old)
	old.ObjectMeta = storedMeta("data", "default")
	upd := old.DeepCopy()
	upd.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	wantErrors(t, s.ValidateUpdate(upd, old), "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"+
		"@@ -1,6 +1,6 @@\n {\n  \"AccessModes\": [\n-  \"ReadWriteOnce\"\n+  \"ReadWriteMany\"\n  ],\n  \"Selector\": null,\n  \"Resources\": {\n")

	bigger := old.DeepCopy()
	bigger.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	wantErrors(t, s.ValidateUpdate(bigger, old), "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"+
		"@@ -6,7 +6,7 @@\n  \"Resources\": {\n   \"Limits\": null,\n   \"Requests\": {\n-   \"storage\": \"1Gi\"\n+   \"storage\": \"2Gi\"\n   }\n  },\n  \"VolumeName\": \"\",\n")

	bound := old.DeepCopy()
	bound.Spec.VolumeName = "pv-1"
	wantErrors(t, s.ValidateUpdate(bound, old))
}
