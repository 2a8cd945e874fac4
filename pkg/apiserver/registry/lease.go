package registry

// Leases (coordination.k8s.io/v1): what leader election and node
// heartbeats write. No status, no generation; the spec's numbers are
// checked as kube-apiserver checks them.

import (
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// leases is coordination.k8s.io/v1 leases.
func leases() *Resource {
	return &Resource{
		Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", ListKind: "LeaseList", Singular: "lease",
		Namespaced: true,
		New:        func() runtime.Object { return &coordinationv1.Lease{} },
		NewList:    func() runtime.Object { return &coordinationv1.LeaseList{} },
		Strategy:   leaseStrategy{},
		Table:      printers.Leases,
	}
}

// leaseStrategies are the coordinated-election strategies kube defines.
var leaseStrategies = []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}

type leaseStrategy struct{}

// PrepareForCreate: leases have no defaults and no status.
func (leaseStrategy) PrepareForCreate(obj runtime.Object) {}

// PrepareForUpdate: every field may be written.
func (leaseStrategy) PrepareForUpdate(obj, old runtime.Object) {}

// Validate checks a new lease: a DNS subdomain name and a sane spec.
func (leaseStrategy) Validate(obj runtime.Object) field.ErrorList {
	l := obj.(*coordinationv1.Lease)
	errs := ValidateMetaCreate(&l.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateLeaseSpec(&l.Spec, field.NewPath("spec"))...)
}

// ValidateUpdate checks metadata and the spec as on create.
func (leaseStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	l := obj.(*coordinationv1.Lease)
	errs := ValidateMetaUpdate(&l.ObjectMeta, &old.(*coordinationv1.Lease).ObjectMeta)
	return append(errs, validateLeaseSpec(&l.Spec, field.NewPath("spec"))...)
}

// validateLeaseSpec follows kube's rules and wording for a lease's spec.
func validateLeaseSpec(spec *coordinationv1.LeaseSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if d := spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(path.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	if n := spec.LeaseTransitions; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(path.Child("leaseTransitions"), *n, "must be greater than or equal to 0"))
	}
	if spec.Strategy != nil {
		errs = append(errs, validateLeaseStrategy(*spec.Strategy, path.Child("strategy"))...)
	}
	if p := spec.PreferredHolder; p != nil && *p != "" && (spec.Strategy == nil || *spec.Strategy == "") {
		errs = append(errs, field.Forbidden(path.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}

// validateLeaseStrategy accepts kube's own strategies by bare name and any
// other as a qualified name (example.com/mine).
func validateLeaseStrategy(s coordinationv1.CoordinatedLeaseStrategy, path *field.Path) field.ErrorList {
	for _, known := range leaseStrategies {
		if s == known {
			return nil
		}
	}
	var errs field.ErrorList
	if !strings.Contains(string(s), "/") {
		// kube reports the field's child again here ("strategy.strategy").
		return field.ErrorList{field.NotSupported(path.Child("strategy"), s, leaseStrategies)}
	}
	for _, msg := range content.IsLabelKey(string(s)) {
		errs = append(errs, field.Invalid(path.Child("strategy"), s, msg))
	}
	return errs
}
