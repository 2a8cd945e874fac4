package registry

import (
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPDBValidation(t *testing.T) {
	s := pdbStrategy{}
	one, pct := intstr.FromInt32(1), intstr.FromString("150%")
	good := &policyv1.PodDisruptionBudget{ObjectMeta: objMeta("web-pdb", "default"), Spec: policyv1.PodDisruptionBudgetSpec{
		MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
	}}
	wantErrors(t, s.Validate(good))

	both := good.DeepCopy()
	both.Spec.MaxUnavailable = &one
	wantErrors(t, s.Validate(both),
		`spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set`)

	over := good.DeepCopy()
	over.Spec.MinAvailable, over.Spec.MaxUnavailable = nil, &pct
	wantErrors(t, s.Validate(over), `spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%`)

	negative := good.DeepCopy()
	minus := intstr.FromInt32(-1)
	negative.Spec.MinAvailable = &minus
	wantErrors(t, s.Validate(negative), "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0")

	policy := good.DeepCopy()
	p := policyv1.UnhealthyPodEvictionPolicyType("Sometimes")
	policy.Spec.UnhealthyPodEvictionPolicy = &p
	wantErrors(t, s.Validate(policy), `spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`)
}

func TestPDBStatusIsTheControllers(t *testing.T) {
	s := pdbStrategy{}
	one := intstr.FromInt32(1)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: objMeta("web-pdb", "default"), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 5}}
	s.PrepareForCreate(pdb)
	if pdb.Status.DisruptionsAllowed != 0 {
		t.Fatal("a create set status")
	}
	old := pdb.DeepCopy()
	old.ObjectMeta = storedMeta("web-pdb", "default")
	old.Status.CurrentHealthy = 3
	upd := old.DeepCopy()
	upd.Status.CurrentHealthy = 9
	two := intstr.FromInt32(2)
	upd.Spec.MinAvailable = &two
	s.PrepareForUpdate(upd, old)
	if upd.Status.CurrentHealthy != 3 || !s.GenerationChanged(upd, old) {
		t.Fatalf("main update: status %+v", upd.Status)
	}
	st := old.DeepCopy()
	st.Spec.MinAvailable = &two
	st.Status.DisruptionsAllowed = -1
	s.PrepareForStatusUpdate(st, old)
	if st.Spec.MinAvailable.IntVal != 1 {
		t.Fatal("a status write changed the spec")
	}
	wantErrors(t, s.ValidateStatusUpdate(st, old), "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0")
}
