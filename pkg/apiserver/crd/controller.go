package crd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/customresource"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// Controller keeps CRDs' status and the registry in step with the stored
// CRDs, doing inside the server what kube-apiserver's naming,
// establishing and finalizer controllers do. Sync is level-triggered: it
// reads every CRD and does what is missing, so the server may run it at
// start and after any change, as often as it likes.
type Controller struct {
	objects registry.Objects
	reg     *registry.Registry
	log     *slog.Logger

	mu sync.Mutex // one Sync at a time
	// served is what the registry holds for each CRD, by CRD name.
	served map[string]served
}

// served records the resources serving one CRD and what they were built
// from, so that an unchanged CRD is not rebuilt.
type served struct {
	from string
	gvrs []schema.GroupVersionResource
}

// NewController returns a Controller writing through objects (the
// server's own handlers' steps) and serving in reg.
func NewController(objects registry.Objects, reg *registry.Registry, log *slog.Logger) *Controller {
	return &Controller{objects: objects, reg: reg, log: log, served: map[string]served{}}
}

// syncing marks the context of Sync's own writes.
type syncing struct{}

// AfterWrite is Sync for a client's write to a CRD, run before the write
// is answered; errors are left to the next Sync. A write Sync itself
// makes (a status, a finalizer) does not sync again.
func (c *Controller) AfterWrite(ctx context.Context) {
	if ctx.Value(syncing{}) != nil {
		return
	}
	if _, err := c.Sync(ctx); err != nil && ctx.Err() == nil {
		c.log.Warn("serving custom resources", "err", err)
	}
}

// Sync brings every CRD one step closer to what it asks for. pending
// reports that a deleted CRD still waits for custom resources that
// finalizers keep, so Sync should run again soon even if nothing changes.
func (c *Controller) Sync(ctx context.Context) (pending bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx = context.WithValue(ctx, syncing{}, true)
	crds, err := c.list(ctx)
	if err != nil {
		return false, err
	}
	var errs []error
	present := map[string]bool{}
	for _, crd := range crds {
		present[crd.Name] = true
		waiting, err := c.syncOne(ctx, crd, crds)
		pending = pending || waiting
		if err != nil && !apierrors.IsConflict(err) { // a conflict: the change that caused it brings the next Sync
			errs = append(errs, fmt.Errorf("%s: %w", crd.Name, err))
		}
	}
	for name := range c.served {
		if !present[name] {
			c.unserve(name)
		}
	}
	return pending, errors.Join(errs...)
}

// list reads every CRD, oldest first: an older CRD keeps a contested name.
func (c *Controller) list(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	objs, err := c.objects.List(ctx, GroupVersionResource, "")
	if err != nil {
		return nil, err
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(objs))
	for _, o := range objs {
		crds = append(crds, o.(*apiextensionsv1.CustomResourceDefinition))
	}
	sort.SliceStable(crds, func(i, j int) bool {
		a, b := crds[i].CreationTimestamp, crds[j].CreationTimestamp
		return a.Before(&b) || (a.Equal(&b) && crds[i].Name < crds[j].Name)
	})
	return crds, nil
}

// syncOne accepts crd's names, serves it once Established, and cleans it
// up once deleted.
func (c *Controller) syncOne(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, all []*apiextensionsv1.CustomResourceDefinition) (pending bool, err error) {
	if crd.DeletionTimestamp == nil && acceptNames(crd, c.taken(crd, all)) {
		updated, err := c.objects.Update(ctx, GroupVersionResource, "status", crd, false)
		if err != nil {
			return false, err
		}
		crd = updated.(*apiextensionsv1.CustomResourceDefinition)
	}
	if apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		if err := c.serve(crd); err != nil {
			return false, err
		}
	}
	if crd.DeletionTimestamp != nil {
		return c.finalize(ctx, crd)
	}
	return false, nil
}

// taken are the names held in crd's group by the other CRDs and by the
// built-in resources.
func (c *Controller) taken(crd *apiextensionsv1.CustomResourceDefinition, all []*apiextensionsv1.CustomResourceDefinition) takenNames {
	t := newTakenNames()
	for _, other := range all {
		if other.Name != crd.Name && other.Spec.Group == crd.Spec.Group {
			t.add(other.Status.AcceptedNames)
		}
	}
	for _, r := range c.reg.All() {
		if r.Schema == nil && r.Group == crd.Spec.Group {
			t.add(apiextensionsv1.CustomResourceDefinitionNames{Plural: r.Resource, Singular: r.Singular, ShortNames: r.ShortNames, Kind: r.Kind, ListKind: r.ListKind})
		}
	}
	return t
}

// serve puts crd's resources in the registry, replacing those built from
// an earlier state of it.
func (c *Controller) serve(crd *apiextensionsv1.CustomResourceDefinition) error {
	from := fmt.Sprintf("%s/%d/%v/%v", crd.UID, crd.Generation, crd.DeletionTimestamp != nil, crd.Status.AcceptedNames)
	if c.served[crd.Name].from == from {
		return nil
	}
	resources, err := customresource.Resources(crd)
	if err != nil {
		return err
	}
	gvrs := make([]schema.GroupVersionResource, 0, len(resources))
	for _, r := range resources {
		gvrs = append(gvrs, r.GroupVersionResource())
	}
	if err := c.reg.Replace(c.served[crd.Name].gvrs, resources); err != nil {
		return err
	}
	c.served[crd.Name] = served{from: from, gvrs: gvrs}
	c.log.Info("serving custom resources", "crd", crd.Name, "versions", versionsOf(gvrs))
	return nil
}

func (c *Controller) unserve(name string) {
	_ = c.reg.Replace(c.served[name].gvrs, nil)
	delete(c.served, name)
	c.log.Info("stopped serving custom resources", "crd", name)
}

func versionsOf(gvrs []schema.GroupVersionResource) string {
	var v []string
	for _, g := range gvrs {
		v = append(v, g.Version)
	}
	return strings.Join(v, ",")
}

// finalize deletes a deleted CRD's custom resources, then removes
// CleanupFinalizer so that the CRD goes too. Objects that finalizers
// keep are waited for (pending).
func (c *Controller) finalize(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (pending bool, err error) {
	if !apihelpers.CRDHasFinalizer(crd, CleanupFinalizer) {
		return false, nil
	}
	if gvrs := c.served[crd.Name].gvrs; len(gvrs) > 0 {
		left, err := c.deleteAll(ctx, gvrs[0])
		if err != nil || left > 0 {
			return left > 0, err
		}
	}
	apihelpers.CRDRemoveFinalizer(crd, CleanupFinalizer)
	_, err = c.objects.Update(ctx, GroupVersionResource, "", crd, false)
	if apierrors.IsNotFound(err) {
		err = nil
	}
	if err == nil && len(crd.Finalizers) == 0 {
		c.unserve(crd.Name) // the update deleted it
	}
	return false, err
}

// deleteAll deletes every object of gvr and counts those still there.
func (c *Controller) deleteAll(ctx context.Context, gvr schema.GroupVersionResource) (left int, err error) {
	objs, err := c.objects.List(ctx, gvr, "")
	if err != nil {
		return 0, err
	}
	for _, o := range objs {
		m := o.(metav1.Object)
		if err := c.objects.Delete(ctx, gvr, m.GetNamespace(), m.GetName(), nil); err != nil && !apierrors.IsNotFound(err) {
			return 0, err
		}
	}
	if objs, err = c.objects.List(ctx, gvr, ""); err != nil {
		return 0, err
	}
	return len(objs), nil
}
