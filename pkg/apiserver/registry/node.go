package registry

// Nodes: status may be set on create (a kubelet registers its node with
// its capacity), allocatable defaults to capacity, taints are checked.

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/apiserver/printers"
)

// nodes is core/v1 nodes.
func nodes() *Resource {
	s := nodeStrategy{}
	return &Resource{
		Version: "v1", Resource: "nodes", Kind: "Node", ListKind: "NodeList", Singular: "node",
		ShortNames: []string{"no"},
		New:        func() runtime.Object { return &corev1.Node{} },
		NewList:    func() runtime.Object { return &corev1.NodeList{} },

		Strategy: s,
		Subresources: map[string]*Subresource{
			"status": {PrepareForUpdate: s.PrepareForStatusUpdate, ValidateUpdate: s.ValidateStatusUpdate},
		},
		Table:    printers.Nodes,
		FieldSet: s.FieldSet,
	}
}

type nodeStrategy struct{}

// defaultNode: allocatable equals capacity unless given.
func defaultNode(n *corev1.Node) {
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	}
}

// PrepareForCreate keeps the client's status: nodes are the one kind
// whose status is set on create.
func (nodeStrategy) PrepareForCreate(obj runtime.Object) { defaultNode(obj.(*corev1.Node)) }

// PrepareForUpdate keeps the stored status.
func (nodeStrategy) PrepareForUpdate(obj, old runtime.Object) {
	n := obj.(*corev1.Node)
	n.Status = old.(*corev1.Node).Status
	defaultNode(n)
}

// PrepareForStatusUpdate keeps the stored spec.
func (nodeStrategy) PrepareForStatusUpdate(obj, old runtime.Object) {
	n := obj.(*corev1.Node)
	n.Spec = old.(*corev1.Node).Spec
	defaultNode(n)
}

// Validate checks a new node: DNS subdomain name, no namespace, taints.
func (nodeStrategy) Validate(obj runtime.Object) field.ErrorList {
	n := obj.(*corev1.Node)
	errs := ValidateMetaCreate(&n.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain)
	return append(errs, validateTaints(n.Spec.Taints, field.NewPath("spec", "taints"))...)
}

// ValidateUpdate checks metadata and taints.
func (nodeStrategy) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	n := obj.(*corev1.Node)
	errs := ValidateMetaUpdate(&n.ObjectMeta, &old.(*corev1.Node).ObjectMeta)
	return append(errs, validateTaints(n.Spec.Taints, field.NewPath("spec", "taints"))...)
}

// ValidateStatusUpdate checks metadata only.
func (nodeStrategy) ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList {
	return ValidateMetaUpdate(&obj.(*corev1.Node).ObjectMeta, &old.(*corev1.Node).ObjectMeta)
}

// FieldSet offers metadata.name and spec.unschedulable.
func (nodeStrategy) FieldSet(obj runtime.Object) fields.Set {
	n := obj.(*corev1.Node)
	return mergeFields(metaFields(n, false), fields.Set{
		"spec.unschedulable": strconv.FormatBool(n.Spec.Unschedulable),
	})
}

// validateTaints: key a qualified name, value a label value, effect one
// of NoSchedule, PreferNoSchedule, NoExecute; no two with the same key
// and effect.
func validateTaints(taints []corev1.Taint, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, t := range taints {
		path := fldPath.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, path.Child("key"))...)
		if msgs := content.IsLabelValue(t.Value); len(msgs) != 0 {
			errs = append(errs, field.Invalid(path.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		errs = append(errs, oneOf(path.Child("effect"), t.Effect, taintEffects)...)
		id := t.Key + ":" + string(t.Effect)
		if seen[id] {
			errs = append(errs, field.Duplicate(path, "taints must be unique by key and effect pair"))
		}
		seen[id] = true
	}
	return errs
}
