package cli

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

func isAddedOrModified(ev watch.Event) (bool, error) {
	return ev.Type == watch.Added || ev.Type == watch.Modified, nil
}

// waitDeleted waits until the object is gone. With --timeout=0 it only
// checks once.
func (o *waitOptions) waitDeleted(ctx context.Context, dyn dynamic.Interface, info *objectInfo) (metav1.Object, error) {
	live, err := info.client(dyn).Get(ctx, info.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return info.Obj, nil
	}
	if err != nil {
		return nil, err
	}
	if o.timeout == 0 {
		return nil, fmt.Errorf("condition not met for %s/%s", info.Mapping.Resource.Resource, info.Name)
	}
	if err := waitOneDeleted(ctx, dyn, info, live.GetUID()); err != nil {
		return nil, err
	}
	return live, nil
}

// waitMet waits until a status condition or jsonpath wait holds for the
// object, and returns the object as it was then. With --timeout=0 it only
// checks once.
func (o *waitOptions) waitMet(ctx context.Context, dyn dynamic.Interface, streams genericiooptions.IOStreams, info *objectInfo, c waitCondition) (metav1.Object, error) {
	notMet := fmt.Errorf("condition not met for %s/%s", info.Mapping.Resource.Resource, info.Name)
	res := info.client(dyn)
	if o.timeout == 0 {
		live, err := res.Get(ctx, info.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		ok, err := c.met(live)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, notMet
		}
		return live, nil
	}
	// Gone before the watch began: report it instead of waiting out the
	// timeout.
	present := func(store cache.Store) (bool, error) {
		_, exists, err := store.Get(&metav1.ObjectMeta{Namespace: info.Namespace, Name: info.Name})
		if err != nil {
			return true, err
		}
		if !exists {
			return true, apierrors.NewNotFound(info.Mapping.Resource.GroupResource(), info.Name)
		}
		return false, nil
	}
	ev, err := watchtools.UntilWithSync(ctx, nameListWatch(res, dyn, info.Name), &unstructured.Unstructured{}, present, func(ev watch.Event) (bool, error) {
		switch ev.Type {
		case watch.Error:
			// The server ends the watch after an error it cannot recover
			// from; kubectl says so and keeps waiting.
			fmt.Fprintf(streams.ErrOut, "error: An error occurred while waiting for the condition to be satisfied: %v", apierrors.FromObject(ev.Object))
			return false, nil
		case watch.Deleted:
			return false, nil
		}
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			return false, fmt.Errorf("unexpected object %T", ev.Object)
		}
		return c.met(u)
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, waitTimeoutError(info)
		}
		return nil, err
	}
	u, ok := ev.Object.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("unexpected object %T", ev.Object)
	}
	return u, nil
}
