// Package registry is the table of resources miniapi serves. Each Resource
// carries everything the generic HTTP handlers need: its names, its Go
// type, the Strategy with the kind's rules (defaults, validation), its
// subresources, its generation rule, how it is deleted, and its Table.
// Adding a kind means adding one file here (and its printer); no handler
// changes.
//
// A Registry is a value, not a global: every server has its own, and it
// may change while the server runs (custom resources come and go). Readers
// get a snapshot; Generation tells them when to rebuild what they derived
// from it (discovery, OpenAPI).
package registry

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Registry is the set of served resources, safe for concurrent use.
type Registry struct {
	mu         sync.RWMutex
	byGVR      map[schema.GroupVersionResource]*Resource
	order      []*Resource // in the order added: core first, as discovery lists them
	generation uint64      // moves on every change
}

// New returns a registry holding resources.
func New(resources ...*Resource) (*Registry, error) {
	r := &Registry{byGVR: map[schema.GroupVersionResource]*Resource{}}
	for _, res := range resources {
		if err := r.Add(res); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Lookup finds a resource by group, version and plural name.
func (r *Registry) Lookup(gvr schema.GroupVersionResource) (*Resource, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	res, ok := r.byGVR[gvr]
	return res, ok
}

// All returns every served resource, in the order they were added. The
// slice is the caller's; the Resources are shared and must not be changed.
func (r *Registry) All() []*Resource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]*Resource(nil), r.order...)
}

// Generation is a number that changes whenever the set of resources does.
func (r *Registry) Generation() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.generation
}

// Add serves a new resource. A resource already served under the same
// group, version and plural is an error.
func (r *Registry) Add(res *Resource) error {
	if err := check(res); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	gvr := res.GroupVersionResource()
	if _, ok := r.byGVR[gvr]; ok {
		return fmt.Errorf("registry: %s is already served", gvr)
	}
	r.byGVR[gvr] = res
	r.order = append(r.order, res)
	r.generation++
	return nil
}

// Replace stops serving the resources named in remove (those not served
// are skipped) and serves add instead, in one change: a request sees
// either the old set or the new one, never a gap between them.
func (r *Registry) Replace(remove []schema.GroupVersionResource, add []*Resource) error {
	for _, res := range add {
		if err := check(res); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	gone := map[schema.GroupVersionResource]bool{}
	for _, gvr := range remove {
		gone[gvr] = true
	}
	for _, res := range add {
		if gvr := res.GroupVersionResource(); r.byGVR[gvr] != nil && !gone[gvr] {
			return fmt.Errorf("registry: %s is already served", gvr)
		}
	}
	kept := r.order[:0:0]
	for _, res := range r.order {
		if gone[res.GroupVersionResource()] {
			delete(r.byGVR, res.GroupVersionResource())
			continue
		}
		kept = append(kept, res)
	}
	if len(kept) == len(r.order) && len(add) == 0 {
		return nil // nothing was served under remove's names
	}
	for _, res := range add {
		r.byGVR[res.GroupVersionResource()] = res
		kept = append(kept, res)
	}
	r.order = kept
	r.generation++
	return nil
}

// check refuses a Resource the handlers could not serve.
func check(res *Resource) error {
	switch {
	case res.Version == "" || res.Resource == "" || res.Kind == "":
		return fmt.Errorf("registry: %q needs a version, resource and kind", res.Resource)
	case res.New == nil:
		return fmt.Errorf("registry: %s needs New", res.Resource)
	case res.Create != nil:
		// A computed resource has no list, no strategy and no storage.
		if len(res.Verbs) != 1 || res.Verbs[0] != "create" || res.StoredAs != nil {
			return fmt.Errorf("registry: %s is computed (Create): it serves only create and stores nothing", res.Resource)
		}
		return nil
	case res.ListKind == "" || res.NewList == nil || res.Strategy == nil:
		return fmt.Errorf("registry: %s needs a list kind, NewList and a Strategy", res.Resource)
	}
	if sa := res.StoredAs; sa != nil && (sa.Version == "" || sa.Resource == "" || sa.New == nil || sa.ToStored == nil || sa.FromStored == nil) {
		return fmt.Errorf("registry: %s: StoredAs needs a version, resource, New, ToStored and FromStored", res.Resource)
	}
	for name, sub := range res.Subresources {
		if sub == nil {
			return fmt.Errorf("registry: %s/%s is nil", res.Resource, name)
		}
		if v := sub.View; v != nil && (v.New == nil || v.Get == nil || v.Apply == nil) {
			return fmt.Errorf("registry: %s/%s needs New, Get and Apply", res.Resource, name)
		}
	}
	return nil
}
