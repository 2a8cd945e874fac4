package owner

import (
	"context"
	"fmt"
	"log/slog"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// Claim settles which objects of one kind an owner controls, as kube's
// ControllerRefManager does: an owned object whose labels no longer match
// sel is released, a matching orphan is adopted, and the rest of the owned
// ones are returned. The indexer must carry this package's Index.
//
// An owner being deleted releases and adopts nothing. Before the first
// adoption stillLive re-reads the owner from the server, because the cache
// may be stale: a deleted or replaced owner must not adopt. patch sends an
// ownership patch to one object (an object already gone is no error).
func Claim[T metav1.Object](ctx context.Context, log *slog.Logger, indexer cache.Indexer,
	own metav1.Object, kind schema.GroupVersionKind, sel labels.Selector,
	patch func(ctx context.Context, obj T, patch []byte) error,
	stillLive func(ctx context.Context) (bool, error)) ([]T, error) {
	owned, err := indexer.ByIndex(Index, string(own.GetUID()))
	if err != nil {
		return nil, err
	}
	orphans, err := indexer.ByIndex(Index, OrphanKey(own.GetNamespace()))
	if err != nil {
		return nil, err
	}
	ownerName := own.GetNamespace() + "/" + own.GetName()
	deleting := own.GetDeletionTimestamp() != nil
	var claimed []T
	for _, o := range owned {
		obj := o.(T)
		if deleting || sel.Matches(labels.Set(obj.GetLabels())) {
			claimed = append(claimed, obj)
			continue
		}
		if err := patch(ctx, obj, ReleasePatch(own.GetUID(), obj.GetUID())); err != nil {
			return nil, fmt.Errorf("releasing %s: %w", obj.GetName(), err)
		}
		log.Info("released an object that no longer matches the selector", "owner", kind.Kind, "name", ownerName, "released", obj.GetName())
	}
	if deleting {
		return claimed, nil
	}
	checked := false
	for _, o := range orphans {
		obj := o.(T)
		if obj.GetDeletionTimestamp() != nil || !sel.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		if !checked {
			live, err := stillLive(ctx)
			if err != nil {
				return nil, err
			}
			if !live {
				return claimed, nil
			}
			checked = true
		}
		if err := patch(ctx, obj, AdoptPatch(own, kind, obj.GetUID())); err != nil {
			return nil, fmt.Errorf("adopting %s: %w", obj.GetName(), err)
		}
		log.Info("adopted an orphan matching the selector", "owner", kind.Kind, "name", ownerName, "adopted", obj.GetName())
		claimed = append(claimed, obj)
	}
	return claimed, nil
}
