package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// namespacedResource is one kind of object a namespace can hold, as
// discovery lists it.
type namespacedResource struct {
	gvr schema.GroupVersionResource
	// canDeleteCollection: delete them all with one request; otherwise
	// one delete per object.
	canDeleteCollection bool
}

// name is "<plural>.<group>", as kube's namespace conditions name a
// resource ("pods." for the core group).
func (r namespacedResource) name() string { return r.gvr.Resource + "." + r.gvr.Group }

// namespacedResources asks discovery, as kube-controller-manager does on
// every pass, for each namespaced resource that can be deleted, in its
// preferred version. Custom resources come and go, so nothing is cached.
// A group discovery could not read is reported in err, with the rest.
func (c *Controller) namespacedResources() ([]namespacedResource, error) {
	lists, err := discovery.ServerPreferredNamespacedResources(c.discovery)
	if err != nil && len(lists) == 0 {
		return nil, err
	}
	var out []namespacedResource
	for _, list := range discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "delete"}}, lists) {
		gv, perr := schema.ParseGroupVersion(list.GroupVersion)
		if perr != nil {
			err = errors.Join(err, perr)
			continue
		}
		for _, r := range list.APIResources {
			out = append(out, namespacedResource{
				gvr:                 gv.WithResource(r.Name),
				canDeleteCollection: slices.Contains(r.Verbs, "deletecollection"),
			})
		}
	}
	return out, err
}

var background = metav1.DeletePropagationBackground

// remaining lists the objects of r left in namespace ns. It asks the API,
// not a cache, so a pass never finalizes a namespace on stale news.
func (c *Controller) remaining(ctx context.Context, r namespacedResource, ns string) ([]metav1.PartialObjectMetadata, error) {
	list, err := c.metadata.Resource(r.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) { // the resource went away (its CRD was deleted)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s in %s: %w", r.name(), ns, err)
	}
	return list.Items, nil
}

// deleteAll deletes items, the objects of r in namespace ns, in the
// background: the garbage collector takes care of their dependents.
func (c *Controller) deleteAll(ctx context.Context, r namespacedResource, ns string, items []metav1.PartialObjectMetadata) error {
	client := c.metadata.Resource(r.gvr).Namespace(ns)
	del := metav1.DeleteOptions{PropagationPolicy: &background}
	if r.canDeleteCollection {
		if err := client.DeleteCollection(ctx, del, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s in %s: %w", r.name(), ns, err)
		}
		return nil
	}
	for _, item := range items {
		if err := client.Delete(ctx, item.Name, del); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s in %s: %w", r.name(), ns, err)
		}
	}
	return nil
}
