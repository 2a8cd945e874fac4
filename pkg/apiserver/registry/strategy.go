package registry

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Strategy holds one kind's rules, as kube-apiserver's REST strategies do.
// Every object passed in is the kind's typed Go struct (*appsv1.Deployment,
// *corev1.Pod, ...). The handlers set uid, timestamps, resourceVersion and
// generation; a Strategy only says what the kind's rules are.
type Strategy interface {
	// PrepareForCreate clears what a client may not set on create (status,
	// for kinds with a status subresource) and applies the kind's defaults.
	PrepareForCreate(obj runtime.Object)
	// PrepareForUpdate keeps from old what an update of the main resource
	// may not change (status, for kinds with a status subresource) and
	// applies defaults to obj.
	PrepareForUpdate(obj, old runtime.Object)
	// PrepareForStatusUpdate keeps from old what a /status write may not
	// change: always the spec, and per kind what kube-apiserver's status
	// strategy keeps (Deployments also keep labels, Pods owner references
	// and deletion state). Annotations may change through /status.
	PrepareForStatusUpdate(obj, old runtime.Object)
	// Validate checks a new object, with kube-apiserver's field paths and
	// messages.
	Validate(obj runtime.Object) field.ErrorList
	// ValidateUpdate checks an update (immutable fields and all of Validate).
	ValidateUpdate(obj, old runtime.Object) field.ErrorList
	// GenerationChanged reports whether the change from old to obj moves
	// metadata.generation: any change to spec, and for Deployments also to
	// annotations. Status-only and no-op writes never do.
	GenerationChanged(obj, old runtime.Object) bool
	// FieldSet is what field selectors match against for this object
	// (metadata.name, metadata.namespace, and e.g. spec.nodeName).
	FieldSet(obj runtime.Object) fields.Set
}

// Scaler is implemented by the strategies of kinds with a scale
// subresource.
type Scaler interface {
	// Scale returns the object's autoscaling/v1 Scale.
	Scale(obj runtime.Object) *autoscalingv1.Scale
	// SetReplicas sets spec.replicas.
	SetReplicas(obj runtime.Object, replicas int32)
}

// StatusValidator is implemented by the strategies of kinds with a status
// subresource. A write to /status is checked with ValidateStatusUpdate
// (after PrepareForStatusUpdate) instead of ValidateUpdate, as
// kube-apiserver's status strategies do: metadata rules plus the status'
// own rules (counts not negative, ready not above total...). The spec is
// not re-validated there, since PrepareForStatusUpdate restored it.
type StatusValidator interface {
	ValidateStatusUpdate(obj, old runtime.Object) field.ErrorList
}

// GenerationTracker is implemented by the strategies of kinds whose
// metadata.generation kube-apiserver maintains (Pods, ReplicaSets,
// Deployments). For the other kinds (Namespaces, Nodes, Events)
// kube-apiserver leaves generation unset, and `kubectl get -o yaml` shows
// none; handlers should do the same when TracksGeneration is false or the
// strategy does not implement this interface.
//
// GenerationChanged is meant for writes to the main resource only: a
// write through /status never moves the generation, even when it changes
// annotations (the deployment controller records its revision annotation
// through /status, and generation stays 1).
type GenerationTracker interface {
	TracksGeneration() bool
}
