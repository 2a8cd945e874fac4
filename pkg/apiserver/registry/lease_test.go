package registry

import (
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
)

func TestLeaseValidation(t *testing.T) {
	s := leaseStrategy{}
	good := &coordinationv1.Lease{ObjectMeta: objMeta("my-lock", "default"), Spec: coordinationv1.LeaseSpec{
		HolderIdentity: ptr("pod-a"), LeaseDurationSeconds: ptr(int32(15)), LeaseTransitions: ptr(int32(0)),
	}}
	wantErrors(t, s.Validate(good))

	bad := good.DeepCopy()
	bad.Spec.LeaseDurationSeconds = ptr(int32(0))
	bad.Spec.LeaseTransitions = ptr(int32(-1))
	wantErrors(t, s.Validate(bad),
		"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
		"spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0")

	preferred := good.DeepCopy()
	preferred.Spec.PreferredHolder = ptr("pod-b")
	wantErrors(t, s.Validate(preferred), "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined")
	preferred.Spec.Strategy = ptr(coordinationv1.OldestEmulationVersion)
	wantErrors(t, s.Validate(preferred))
	preferred.Spec.Strategy = ptr(coordinationv1.CoordinatedLeaseStrategy("Newest"))
	wantErrors(t, s.Validate(preferred), `spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"`)
	preferred.Spec.Strategy = ptr(coordinationv1.CoordinatedLeaseStrategy("example.com/mine"))
	wantErrors(t, s.Validate(preferred))

	named := good.DeepCopy()
	named.Name = "Not_A_Name"
	wantErrorContaining(t, s.Validate(named), "metadata.name: Invalid value: \"Not_A_Name\"")

	old := good.DeepCopy()
	old.ObjectMeta = storedMeta("my-lock", "default")
	upd := old.DeepCopy()
	upd.Spec.LeaseDurationSeconds = ptr(int32(-3))
	wantErrors(t, s.ValidateUpdate(upd, old), "spec.leaseDurationSeconds: Invalid value: -3: must be greater than 0")
}
