package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
)

func TestPriorityClass(t *testing.T) {
	s := priorityClassStrategy{}
	high := &schedulingv1.PriorityClass{ObjectMeta: objMeta("high", ""), Value: 100000, Description: "important pods"}
	s.PrepareForCreate(high)
	if high.PreemptionPolicy == nil || *high.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("preemptionPolicy = %v", high.PreemptionPolicy)
	}
	wantErrors(t, s.Validate(high))

	tooHigh := high.DeepCopy()
	tooHigh.Value = 2000000000
	wantErrors(t, s.Validate(tooHigh), "value: Forbidden: maximum allowed value of a user defined priority is 1000000000")

	system := high.DeepCopy()
	system.Name, system.Value = "system-bad", 10
	wantErrors(t, s.Validate(system), "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-bad is not a known system priority class")
	system.Name = "system-node-critical"
	wantErrors(t, s.Validate(system), "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000")
	for _, pc := range SystemPriorityClasses() {
		s.PrepareForCreate(pc)
		wantErrors(t, s.Validate(pc))
	}

	policy := high.DeepCopy()
	policy.PreemptionPolicy = ptr(corev1.PreemptionPolicy("Sometimes"))
	wantErrors(t, s.Validate(policy), `preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`)

	old := high.DeepCopy()
	old.ObjectMeta = storedMeta("high", "")
	upd := old.DeepCopy()
	upd.Value = 5
	upd.PreemptionPolicy = nil
	s.PrepareForUpdate(upd, old)
	wantErrors(t, s.ValidateUpdate(upd, old), "value: Forbidden: may not be changed in an update.")
	upd.PreemptionPolicy = ptr(corev1.PreemptNever)
	wantErrorContaining(t, s.ValidateUpdate(upd, old), `preemptionPolicy: Invalid value: "Never": field is immutable`)
}

func TestStorageClass(t *testing.T) {
	s := storageClassStrategy{}
	sc := &storagev1.StorageClass{ObjectMeta: objMeta("fast", ""), Provisioner: "example.com/fast", Parameters: map[string]string{"type": "ssd"}}
	s.PrepareForCreate(sc)
	if *sc.ReclaimPolicy != corev1.PersistentVolumeReclaimDelete || *sc.VolumeBindingMode != storagev1.VolumeBindingImmediate {
		t.Errorf("defaults: %v %v", *sc.ReclaimPolicy, *sc.VolumeBindingMode)
	}
	wantErrors(t, s.Validate(sc))

	bad := sc.DeepCopy()
	bad.Provisioner = ""
	bad.ReclaimPolicy = ptr(corev1.PersistentVolumeReclaimRecycle)
	bad.VolumeBindingMode = ptr(storagev1.VolumeBindingMode("Later"))
	wantErrors(t, s.Validate(bad),
		"provisioner: Required value",
		`reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`,
		`volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`)

	topo := sc.DeepCopy()
	topo.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "topology.kubernetes.io/zone"}}}}
	wantErrors(t, s.Validate(topo), "allowedTopologies[0].matchLabelExpressions[0].values: Required value")

	old := sc.DeepCopy()
	old.ObjectMeta = storedMeta("fast", "")
	upd := old.DeepCopy()
	upd.Parameters = map[string]string{"type": "hdd"}
	upd.Provisioner = "example.com/slow"
	upd.ReclaimPolicy = ptr(corev1.PersistentVolumeReclaimRetain)
	upd.AllowVolumeExpansion = ptr(true)
	wantErrors(t, s.ValidateUpdate(upd, old),
		"parameters: Forbidden: updates to parameters are forbidden.",
		"provisioner: Forbidden: updates to provisioner are forbidden.",
		"reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.")
}
