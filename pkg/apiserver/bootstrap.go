package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/storage"
)

// Bootstrap creates the seed objects that are missing (the system
// namespaces), through the same create path as a client's request.
// Cluster-scoped seeds come first, so that namespaced ones find their
// namespace; each group is created concurrently, sharing one commit on a
// new store.
func (s *Server) Bootstrap(ctx context.Context) error {
	var clusterScoped, namespaced []registry.Seed
	for _, seed := range registry.Seeds() {
		res, ok := s.reg.Lookup(seed.Resource)
		if !ok {
			return fmt.Errorf("seed of %s: not served", seed.Resource)
		}
		if res.Namespaced {
			namespaced = append(namespaced, seed)
		} else {
			clusterScoped = append(clusterScoped, seed)
		}
	}
	if err := s.createSeeds(ctx, clusterScoped); err != nil {
		return err
	}
	return s.createSeeds(ctx, namespaced)
}

func (s *Server) createSeeds(ctx context.Context, seeds []registry.Seed) error {
	errs := make([]error, len(seeds))
	var wg sync.WaitGroup
	for i, seed := range seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.ensure(ctx, seed)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ensure creates a seed unless an object of its name exists.
func (s *Server) ensure(ctx context.Context, seed registry.Seed) error {
	res, _ := s.reg.Lookup(seed.Resource)
	m, err := meta.Accessor(seed.Object)
	if err != nil {
		return err
	}
	_, err = s.store.Get(ctx, objectKey(res, m.GetNamespace(), m.GetName()))
	if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	obj := seed.Object.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	q := request{res: res, namespace: m.GetNamespace()}
	if _, err := s.createObject(ctx, q, obj, false); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating %s %s: %w", res.Resource, m.GetName(), err)
	}
	return nil
}
