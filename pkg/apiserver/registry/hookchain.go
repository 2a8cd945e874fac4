package registry

// Several WriteHooks on one kind, run in order, as kube-apiserver runs its
// admission plugins in their fixed order: a pod's LimitRanger defaults
// and its priority class; a claim's default StorageClass and its
// LimitRange check.

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
)

// CreateValidator is what WriteHooks may add to check a new object after
// the kind's own validation, as kube-apiserver's validating admission
// plugins run after it: an object that is malformed gets its 422 first,
// and only a well-formed one meets the hook's refusal (LimitRanger's
// 403 for a request below a LimitRange's minimum). The handlers call it
// on every create, dry runs too, between validation and the store write.
type CreateValidator interface {
	ValidateCreate(ctx context.Context, obj runtime.Object) error
}

// ValidateCreate runs hooks' CreateValidator, if they have one.
func ValidateCreate(ctx context.Context, hooks WriteHooks, obj runtime.Object) error {
	if v, ok := hooks.(CreateValidator); ok {
		return v.ValidateCreate(ctx, obj)
	}
	return nil
}

// chainHooks runs each of its hooks in order; a refusal stops the chain
// and finishes, unsuccessfully, the ones that already began.
type chainHooks []WriteHooks

// chain joins the non-nil hooks: nil when there are none, the hook itself
// when there is one. The chain is a Repairer only when one of its hooks
// is, so that kinds whose hooks keep nothing outside their objects are not
// decoded at start.
func chain(hooks ...WriteHooks) WriteHooks {
	var c chainHooks
	for _, h := range hooks {
		if h != nil {
			c = append(c, h)
		}
	}
	switch len(c) {
	case 0:
		return nil
	case 1:
		return c[0]
	}
	for _, h := range c {
		if _, ok := h.(Repairer); ok {
			return repairingChain{c}
		}
	}
	return c
}

// begin runs start on each hook in order and gathers their finish funcs.
func (c chainHooks) begin(ctx context.Context, start func(WriteHooks) (FinishFunc, error)) (FinishFunc, error) {
	finishes := make([]FinishFunc, 0, len(c))
	finishAll := func(ctx context.Context, success bool) {
		for i := len(finishes) - 1; i >= 0; i-- {
			finishes[i](ctx, success)
		}
	}
	for _, h := range c {
		finish, err := start(h)
		if err != nil {
			finishAll(ctx, false)
			return nil, err
		}
		finishes = append(finishes, finish)
	}
	return finishAll, nil
}

// BeginCreate runs every hook's BeginCreate.
func (c chainHooks) BeginCreate(ctx context.Context, obj runtime.Object, dryRun bool) (FinishFunc, error) {
	return c.begin(ctx, func(h WriteHooks) (FinishFunc, error) { return h.BeginCreate(ctx, obj, dryRun) })
}

// BeginUpdate runs every hook's BeginUpdate.
func (c chainHooks) BeginUpdate(ctx context.Context, obj, old runtime.Object, dryRun bool) (FinishFunc, error) {
	return c.begin(ctx, func(h WriteHooks) (FinishFunc, error) { return h.BeginUpdate(ctx, obj, old, dryRun) })
}

// AfterDelete runs every hook's AfterDelete.
func (c chainHooks) AfterDelete(ctx context.Context, obj runtime.Object) {
	for _, h := range c {
		h.AfterDelete(ctx, obj)
	}
}

// ValidateCreate runs the CreateValidator of each hook that has one, in
// order, and stops at the first refusal.
func (c chainHooks) ValidateCreate(ctx context.Context, obj runtime.Object) error {
	for _, h := range c {
		if err := ValidateCreate(ctx, h, obj); err != nil {
			return err
		}
	}
	return nil
}

// noHooks is the WriteHooks part of a hook that only admits creates: it
// holds nothing outside the objects.
type noHooks struct{}

func (noHooks) BeginUpdate(context.Context, runtime.Object, runtime.Object, bool) (FinishFunc, error) {
	return noFinish, nil
}
func (noHooks) AfterDelete(context.Context, runtime.Object) {}

// repairingChain is a chain with a Repairer among its hooks.
type repairingChain struct{ chainHooks }

// Repair runs the Repair of each hook that has one, and reports every
// failure.
func (c repairingChain) Repair(ctx context.Context, stored []runtime.Object) error {
	var errs []error
	for _, h := range c.chainHooks {
		if r, ok := h.(Repairer); ok {
			errs = append(errs, r.Repair(ctx, stored))
		}
	}
	return errors.Join(errs...)
}
