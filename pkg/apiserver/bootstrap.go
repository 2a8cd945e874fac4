package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/storage"
)

// Bootstrap readies the store before anything is served: it repairs what
// kinds keep outside their objects (WriteHooks.Repair: the Service
// ranges, so that a crash between an allocation and the write of its
// Service leaks nothing), then creates the seed objects that are missing
// (the system namespaces, the default/kubernetes Service) through the
// same create path as a client's request. Cluster-scoped seeds come
// first, so that namespaced ones find their namespace; each group is
// created concurrently, sharing one commit on a new store. Last, the
// stored CRDs are served, and followed from then on (crds.go).
func (s *Server) Bootstrap(ctx context.Context) error {
	if err := s.repair(ctx); err != nil {
		return err
	}
	seeds, err := registry.Seeds(s.builtin)
	if err != nil {
		return err
	}
	var clusterScoped, namespaced []registry.Seed
	for _, seed := range seeds {
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
	if err := s.createSeeds(ctx, namespaced); err != nil {
		return err
	}
	s.serveCRDs(ctx)
	s.expireEvents(s.eventTTL)
	return nil
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

// ensure creates a seed unless an object of its name exists. Servers
// started together on one etcd race for the same seeds, and the loser's
// create can fail on what the winner allocated (the kubernetes
// Service's ClusterIP) before the winner's object is stored, rather than
// as AlreadyExists: a failed attempt is retried for a while, and the
// next one finds the winner's object.
func (s *Server) ensure(ctx context.Context, seed registry.Seed) error {
	const attempts, pause = 20, 100 * time.Millisecond
	var err error
	for range attempts {
		if err = s.ensureOnce(ctx, seed); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
	return err
}

// ensureOnce creates the seed unless an object of its name exists.
func (s *Server) ensureOnce(ctx context.Context, seed registry.Seed) error {
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
	// kube-apiserver creates its seeds as its own manager.
	ctx = withManager(ctx, "kube-apiserver", "")
	if _, err := s.createObject(ctx, q, obj, false); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating %s %s: %w", res.Resource, m.GetName(), err)
	}
	return nil
}

// repair hands every kind whose hooks are a Repairer its stored objects.
func (s *Server) repair(ctx context.Context) error {
	for _, res := range s.reg.All() {
		repairer, ok := res.Hooks.(registry.Repairer)
		if !ok {
			continue
		}
		stored, err := s.storedObjects(ctx, res)
		if err != nil {
			return fmt.Errorf("reading the stored %s: %w", res.Resource, err)
		}
		if err := repairer.Repair(ctx, stored); err != nil {
			return fmt.Errorf("repairing %s: %w", res.Resource, err)
		}
	}
	return nil
}

// storedObjects decodes every stored object of res, in all namespaces.
func (s *Server) storedObjects(ctx context.Context, res *registry.Resource) ([]runtime.Object, error) {
	list, err := s.store.List(ctx, collectionPrefix(res, ""), storage.ListOptions{})
	if err != nil {
		return nil, err
	}
	objs := make([]runtime.Object, 0, len(list.KVs))
	for _, kv := range list.KVs {
		obj, err := decodeStored(res, kv)
		if err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
	return objs, nil
}
