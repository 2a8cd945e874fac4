package registry

// PriorityClasses (scheduling.k8s.io/v1): named pod priorities. Values
// above one billion and names starting "system-" are kept for the two
// classes every cluster has (SystemPriorityClasses, seeded at start); the
// value and the preemption policy never change.

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// priorityClasses is scheduling.k8s.io/v1 priorityclasses. With a store,
// a second global default is refused (oneGlobalDefault).
func priorityClasses(opts Options) *Resource {
	r := &Resource{
		Group: schedulingv1.GroupName, Version: "v1", Resource: "priorityclasses", Kind: "PriorityClass", ListKind: "PriorityClassList", Singular: "priorityclass",
		ShortNames: []string{"pc"},
		New:        func() runtime.Object { return &schedulingv1.PriorityClass{} },
		NewList:    func() runtime.Object { return &schedulingv1.PriorityClassList{} },
		Strategy:   priorityClassStrategy{},
		// Generation is 1 from create on and never moves, as kube's.
		Generation: func(obj, old runtime.Object) bool { return false },
		Table:      printers.PriorityClasses,
	}
	if opts.Store != nil {
		r.Hooks = oneGlobalDefault{store: opts.Store, prefix: r.KeyPrefix()}
	}
	return r
}

const (
	// highestUserPriority is the largest value a class not of the system
	// may have.
	highestUserPriority = 1000000000
	// systemCriticalPriority is system-cluster-critical's value;
	// system-node-critical's is 1000 more.
	systemCriticalPriority    = 2 * highestUserPriority
	systemPriorityClassPrefix = "system-"
)

// SystemPriorityClasses are the classes kube-apiserver creates in every
// cluster, as it defines them.
func SystemPriorityClasses() []*schedulingv1.PriorityClass {
	return []*schedulingv1.PriorityClass{
		{
			ObjectMeta:  metav1.ObjectMeta{Name: "system-node-critical"},
			Value:       systemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node.",
		},
		{
			ObjectMeta:  metav1.ObjectMeta{Name: "system-cluster-critical"},
			Value:       systemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
		},
	}
}

// preemptionPolicies are the policies a class may have.
var preemptionPolicies = []corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}

type priorityClassStrategy struct{}

// PrepareForCreate applies kube's default preemption policy.
func (priorityClassStrategy) PrepareForCreate(obj runtime.Object) {
	pc := obj.(*schedulingv1.PriorityClass)
	if pc.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		pc.PreemptionPolicy = &p
	}
}

// PrepareForUpdate applies the same default.
func (s priorityClassStrategy) PrepareForUpdate(obj, old runtime.Object) { s.PrepareForCreate(obj) }

// Validate checks the name, the reserved range and the policy.
func (priorityClassStrategy) Validate(obj runtime.Object) field.ErrorList {
	pc := obj.(*schedulingv1.PriorityClass)
	errs := ValidateMetaCreate(&pc.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain)
	if strings.HasPrefix(pc.Name, systemPriorityClassPrefix) {
		if err := knownSystemPriorityClass(pc); err != nil {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+systemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if pc.Value > highestUserPriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %v", highestUserPriority)))
	}
	if p := pc.PreemptionPolicy; p != nil && *p != corev1.PreemptLowerPriority && *p != corev1.PreemptNever {
		errs = append(errs, field.NotSupported(field.NewPath("preemptionPolicy"), p, preemptionPolicies))
	}
	return errs
}

// ValidateUpdate: the value and the preemption policy never change.
func (priorityClassStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	pc, o := obj.(*schedulingv1.PriorityClass), old.(*schedulingv1.PriorityClass)
	errs := ValidateMetaUpdate(&pc.ObjectMeta, &o.ObjectMeta)
	if pc.Value != o.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	return append(errs, apimachineryvalidation.ValidateImmutableField(pc.PreemptionPolicy, o.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
}

// knownSystemPriorityClass accepts a "system-" class only if it is one of
// SystemPriorityClasses exactly, with kube's reasons when it is not.
func knownSystemPriorityClass(pc *schedulingv1.PriorityClass) error {
	for _, sys := range SystemPriorityClasses() {
		if sys.Name != pc.Name {
			continue
		}
		if sys.Value != pc.Value {
			return fmt.Errorf("value of %v PriorityClass must be %v", sys.Name, sys.Value)
		}
		if sys.GlobalDefault != pc.GlobalDefault {
			return fmt.Errorf("globalDefault of %v PriorityClass must be %v", sys.Name, sys.GlobalDefault)
		}
		return nil
	}
	return fmt.Errorf("%v is not a known system priority class", pc.Name)
}
