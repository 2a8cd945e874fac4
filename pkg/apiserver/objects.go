package apiserver

// objects is the server as registry.Objects: what an action does to
// other objects goes through the handlers' own steps (getKV, readList,
// applyUpdate, deleteObject), so it meets every rule a client's request
// would.

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

type objects struct{ s *Server }

// request names one object (or a collection, when name is "") of gvr.
func (o objects) request(gvr schema.GroupVersionResource, namespace, name string) (request, error) {
	res, ok := o.s.reg.Lookup(gvr)
	if !ok {
		return request{}, apierrors.NewInternalError(fmt.Errorf("the server does not serve %s", gvr))
	}
	if !res.Namespaced {
		namespace = ""
	}
	return request{res: res, namespace: namespace, name: name}, nil
}

func (o objects) Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (runtime.Object, error) {
	q, err := o.request(gvr, namespace, name)
	if err != nil {
		return nil, err
	}
	kv, err := o.s.getKV(ctx, q)
	if err != nil {
		return nil, err
	}
	return o.s.decodedCopy(q.res, kv)
}

func (o objects) List(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]runtime.Object, error) {
	q, err := o.request(gvr, namespace, "")
	if err != nil {
		return nil, err
	}
	p := listParams{sel: selector{labels: labels.Everything(), fields: fields.Everything()}, decodeAll: true}
	page, err := o.s.readList(ctx, q, p)
	if err != nil {
		return nil, err
	}
	out := make([]runtime.Object, 0, len(page.items))
	for _, it := range page.items {
		out = append(out, it.obj.DeepCopyObject()) // it.obj is shared (revcache)
	}
	return out, nil
}

func (o objects) Update(ctx context.Context, gvr schema.GroupVersionResource, subresource string, obj runtime.Object, dryRun bool) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	q, err := o.request(gvr, m.GetNamespace(), m.GetName())
	if err != nil {
		return nil, err
	}
	if subresource != "" {
		if q.subresource, q.sub = subresource, q.res.Subresources[subresource]; q.sub == nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("%s has no subresource %q", gvr, subresource))
		}
	}
	precondition := m.GetResourceVersion()
	return o.s.applyUpdate(ctx, q, dryRun, func(cur runtime.Object) (runtime.Object, error) {
		if err := checkRV(q, cur, precondition); err != nil {
			return nil, err
		}
		return obj.DeepCopyObject(), nil
	})
}

func (o objects) Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, opts *metav1.DeleteOptions) error {
	q, err := o.request(gvr, namespace, name)
	if err != nil {
		return err
	}
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	_, _, err = o.s.deleteObject(ctx, q, opts)
	return err
}
