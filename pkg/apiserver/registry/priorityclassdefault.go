package registry

// One global default PriorityClass at most, as kube-apiserver's Priority
// admission plugin keeps it: a class that asks to be the default while
// another one is gets 403 Forbidden. Like kube's, the check reads the
// stored classes before the write, so two concurrent creates can both
// pass; kube's admission has the same window.

import (
	"context"
	"encoding/json"
	"fmt"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/storage"
)

// oneGlobalDefault are the WriteHooks of priorityclasses that refuse a
// second global default. It holds nothing outside the objects, so it has
// nothing to give back or repair.
type oneGlobalDefault struct {
	store  storage.Store
	prefix string // the store keys of priority classes
}

func noFinish(context.Context, bool) {}

// BeginCreate refuses a new default while another class is one.
func (h oneGlobalDefault) BeginCreate(ctx context.Context, obj runtime.Object, dryRun bool) (FinishFunc, error) {
	return noFinish, h.check(ctx, obj.(*schedulingv1.PriorityClass))
}

// BeginUpdate refuses making a class the default while another is.
func (h oneGlobalDefault) BeginUpdate(ctx context.Context, obj, old runtime.Object, dryRun bool) (FinishFunc, error) {
	return noFinish, h.check(ctx, obj.(*schedulingv1.PriorityClass))
}

// AfterDelete: nothing is kept outside the objects.
func (oneGlobalDefault) AfterDelete(context.Context, runtime.Object) {}

func (h oneGlobalDefault) check(ctx context.Context, pc *schedulingv1.PriorityClass) error {
	if !pc.GlobalDefault {
		return nil
	}
	list, err := h.store.List(ctx, h.prefix, storage.ListOptions{})
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("listing priority classes: %w", err))
	}
	for _, kv := range list.KVs {
		var other schedulingv1.PriorityClass
		if err := json.Unmarshal(kv.Value, &other); err != nil {
			return apierrors.NewInternalError(fmt.Errorf("decoding %s: %w", kv.Key, err))
		}
		if other.GlobalDefault && other.Name != pc.Name {
			return apierrors.NewForbidden(schema.GroupResource{Group: schedulingv1.GroupName, Resource: "priorityclasses"}, pc.Name,
				fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", other.Name))
		}
	}
	return nil
}
