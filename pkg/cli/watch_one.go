package cli

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// selectedListWatch lists and watches the objects of res that match the
// field and label selectors, with WatchList semantics (the current state
// arrives as events first, then changes), as kubectl's waits do.
func selectedListWatch(res dynamic.ResourceInterface, dyn dynamic.Interface, fieldSel, labelSel string) cache.ListerWatcher {
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector, o.LabelSelector = fieldSel, labelSel
			return res.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector, o.LabelSelector = fieldSel, labelSel
			return res.Watch(ctx, o)
		},
	}, dyn)
}

// nameListWatch watches the one object called name.
func nameListWatch(res dynamic.ResourceInterface, dyn dynamic.Interface, name string) cache.ListerWatcher {
	return selectedListWatch(res, dyn, fields.OneTermEqualSelector("metadata.name", name).String(), "")
}
