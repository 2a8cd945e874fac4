package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// ignoredResources are never collected, as in kube-controller-manager's
// garbage collector: events (under both groups) come and go too fast to be
// worth watching.
var ignoredResources = map[schema.GroupResource]bool{
	{Group: "", Resource: "events"}:              true,
	{Group: "events.k8s.io", Resource: "events"}: true,
}

// deletableResources are the namespaced resources discovery lists as
// deletable (delete, list and watch), other than those in typed, each with
// its kind's name: the collector watches them through metadata-only
// informers, since it needs nothing but metadata, so it can own the
// dependents of any kind the server serves, as kube's does. If some groups
// fail discovery, the others are still returned and failed names the
// group-versions that failed (the caller keeps what it had for those).
func deletableResources(ctx context.Context, disc discovery.DiscoveryInterface, typed []*kind) (found map[schema.GroupVersionResource]string, failed map[schema.GroupVersion]error, err error) {
	lists, err := discovery.ServerPreferredNamespacedResourcesWithContext(ctx, discovery.ToDiscoveryInterfaceWithContext(disc))
	if groups, ok := discovery.GroupDiscoveryFailedErrorGroups(err); ok {
		failed, err = groups, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("discovering the resources to collect: %w", err)
	}
	found = map[schema.GroupVersionResource]string{}
	deletable := discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"delete", "list", "watch"}}, lists)
	for _, list := range deletable {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, nil, fmt.Errorf("discovery: %w", err)
		}
		for _, r := range list.APIResources {
			gvr := gv.WithResource(r.Name)
			gk := gv.WithKind(r.Kind).GroupKind()
			if ignoredResources[gvr.GroupResource()] || slices.ContainsFunc(typed, func(k *kind) bool { return k.gk == gk }) {
				continue
			}
			found[gvr] = r.Kind
		}
	}
	return found, failed, nil
}

// metadataKind is the resource gvr of kind kindName, watched by a
// metadata-only informer of its own (not yet running) and read and
// written through the metadata client. The queue key's first part is the
// group-qualified resource, so that two groups' same-named resources
// never meet.
func metadataKind(gvr schema.GroupVersionResource, kindName string, client metadata.Interface) *kind {
	res := client.Resource(gvr)
	inf := metadatainformer.NewFilteredMetadataInformer(client, gvr, metav1.NamespaceAll, metadataResync, cache.Indexers{}, nil).Informer()
	// Not yet started, so the transform cannot fail.
	_ = inf.SetTransform(ownershipOnly)
	return &kind{
		resource: gvr.GroupResource().String(), apiVersion: gvr.GroupVersion().String(), kind: kindName,
		gk:       gvr.GroupVersion().WithKind(kindName).GroupKind(),
		informer: inf,
		get: func(ctx context.Context, ns, name string) (metav1.Object, error) {
			return res.Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		},
		delete: func(ctx context.Context, ns, name string, o metav1.DeleteOptions) error {
			return res.Namespace(ns).Delete(ctx, name, o)
		},
		patch: func(ctx context.Context, ns, name string, data []byte) error {
			_, err := res.Namespace(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{})
			return err
		},
		// The metadata client cannot update; a merge patch that carries
		// the cached resourceVersion is the same optimistic write (the
		// server answers 409 if the object changed since).
		update: func(ctx context.Context, obj runtime.Object) error {
			m := obj.(*metav1.PartialObjectMetadata)
			var finalizers any
			if f := m.GetFinalizers(); len(f) > 0 {
				finalizers = f
			}
			data, err := json.Marshal(map[string]any{"metadata": map[string]any{
				"resourceVersion": m.GetResourceVersion(), "finalizers": finalizers,
			}})
			if err != nil {
				return err
			}
			_, err = res.Namespace(m.GetNamespace()).Patch(ctx, m.GetName(), types.MergePatchType, data, metav1.PatchOptions{})
			return err
		},
	}
}
