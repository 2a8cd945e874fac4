package registry

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
)

// WriteHooks are a kind's steps around the store write of its objects,
// for kinds whose objects hold something kept outside them: a Service's
// ClusterIPs and NodePorts, taken from ranges that live under store keys
// of their own. The store cannot write both in one transaction, so a kind
// takes what a new object needs before the object is stored, gives it
// back when the write fails, and gives back what an old object held only
// after the write that drops it succeeded. A crash in between can leak a
// value, never hand it to two objects; such hooks are also a Repairer,
// which frees the leaks at start.
//
// The handlers call the hooks for writes of the main resource (and of its
// views); a write of a part with its own rules (status) cannot change
// what they look at.
type WriteHooks interface {
	// BeginCreate runs after PrepareForCreate and before validation, as
	// kube-apiserver's does: it may set fields of obj (allocated values)
	// and may refuse the create with an API error. When it succeeds the
	// handler calls finish exactly once, with whether obj was stored. A
	// dry run must change nothing outside obj.
	BeginCreate(ctx context.Context, obj runtime.Object, dryRun bool) (finish FinishFunc, err error)
	// BeginUpdate is BeginCreate for obj replacing old. finish(ctx, true)
	// gives back what old held and obj does not.
	BeginUpdate(ctx context.Context, obj, old runtime.Object, dryRun bool) (finish FinishFunc, err error)
	// AfterDelete runs once obj is gone from the store (never for a dry
	// run): it gives back what obj held.
	AfterDelete(ctx context.Context, obj runtime.Object)
}

// Repairer is implemented by the WriteHooks of kinds that keep something
// outside their objects. Only those pay for decoding every stored object
// at start: hooks that merely check or fill in a new object (pod priority)
// do not implement it.
type Repairer interface {
	// Repair runs at server start, before anything is served, with every
	// stored object of the kind: what is kept outside them becomes
	// exactly what they hold.
	Repair(ctx context.Context, stored []runtime.Object) error
}

// FinishFunc ends what a Begin hook started: success says the object was
// written. It is called exactly once.
type FinishFunc func(ctx context.Context, success bool)
