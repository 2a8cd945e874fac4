package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/storage"
)

// create answers POST to a collection.
func (s *Server) create(w http.ResponseWriter, r *http.Request, q request) {
	if q.sub != nil && q.sub.Action != nil {
		s.createAction(w, r, q)
		return
	}
	out, dryRun, err := negotiateWrite(r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	dec, err := readObject(w, r, q.res.GroupVersionKind(), q.res.New, q.res.Schema)
	if err != nil {
		writeError(w, err)
		return
	}
	if q.res.Create != nil {
		obj, err := computeCreate(r.Context(), q, dec.obj)
		s.answerWrite(w, q, out, http.StatusCreated, obj, dec.warnings, err)
		return
	}
	obj, err := s.createObject(r.Context(), q, dec.obj, dryRun)
	s.answerWrite(w, q, out, http.StatusCreated, obj, dec.warnings, err)
}

// computeCreate answers a create of a computed resource (the reviews):
// its Create hook's answer, nothing stored, dry run or not.
func computeCreate(ctx context.Context, q request, obj runtime.Object) (runtime.Object, error) {
	if _, err := checkRequestMeta(q, obj); err != nil {
		return nil, err
	}
	out, err := q.res.Create(ctx, obj)
	if err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(q.res.GroupVersionKind())
	return out, nil
}

// maxGenerateNameAttempts bounds the retries when a generated name is
// taken.
const maxGenerateNameAttempts = 8

// createObject applies the server's rules to a new object and stores it
// (unless dryRun), returning it with its resourceVersion. A kind's
// BeginCreate hook runs between its defaults and its validation, as
// kube-apiserver's mutating admission does, and learns whether the object
// was stored; its CreateValidator, if any, runs after the validation, as
// kube's validating admission does.
func (s *Server) createObject(ctx context.Context, q request, obj runtime.Object, dryRun bool) (runtime.Object, error) {
	m, generated, err := s.prepareCreate(q, obj)
	if err != nil {
		return nil, err
	}
	if !q.applied {
		obj = s.trackCreate(ctx, q, obj)
		if m, err = meta.Accessor(obj); err != nil {
			return nil, err
		}
	}
	if q.res.Namespaced {
		if err := s.checkNamespace(ctx, q, m.GetNamespace(), m.GetName()); err != nil {
			return nil, err
		}
	}
	stored := false
	if hooks := q.res.Hooks; hooks != nil {
		finish, err := hooks.BeginCreate(ctx, obj, dryRun)
		if err != nil {
			return nil, err
		}
		defer func() { finish(ctx, stored) }()
	}
	if err := invalid(q.res, m.GetName(), q.res.Strategy.Validate(obj)); err != nil {
		return nil, err
	}
	if err := registry.ValidateCreate(ctx, q.res.Hooks, obj); err != nil {
		return nil, err
	}
	if dryRun {
		// A dry run answers as the write would, AlreadyExists included.
		_, err := s.store.Get(ctx, objectKey(q.res, m.GetNamespace(), m.GetName()))
		if err == nil {
			return nil, apierrors.NewAlreadyExists(q.gr(), m.GetName())
		}
		if !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
		return obj, nil
	}
	for attempt := 1; ; attempt++ {
		b, err := encodeForStore(q.res, obj)
		if err != nil {
			return nil, err
		}
		rev, err := s.store.Create(ctx, objectKey(q.res, m.GetNamespace(), m.GetName()), b)
		if errors.Is(err, storage.ErrExists) {
			// Only a name the server made is made again: a client that
			// names its object (a StatefulSet's web-1) gets AlreadyExists,
			// generateName or not, as from kube-apiserver.
			if generated && attempt < maxGenerateNameAttempts {
				m.SetName(generateName(m.GetGenerateName()))
				continue
			}
			return nil, apierrors.NewAlreadyExists(q.gr(), m.GetName())
		}
		if err != nil {
			return nil, err
		}
		stored = true
		s.rememberLabels(objectKey(q.res, m.GetNamespace(), m.GetName()), rev, obj)
		m.SetResourceVersion(formatRV(rev))
		afterWrite(ctx, q.res)
		return obj, nil
	}
}

// namespacesGVR is where namespaces are served; objects of namespaced kinds
// are created only in one that exists.
var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// checkNamespace refuses objects in a namespace that does not exist (404)
// or is being deleted (403), as kube-apiserver's NamespaceLifecycle does.
func (s *Server) checkNamespace(ctx context.Context, q request, ns, name string) error {
	nsRes, ok := s.reg.Lookup(namespacesGVR)
	if !ok {
		return nil
	}
	kv, err := s.store.Get(ctx, objectKey(nsRes, "", ns))
	if errors.Is(err, storage.ErrNotFound) {
		return apierrors.NewNotFound(nsRes.GroupResource(), ns)
	}
	if err != nil {
		return err
	}
	obj, err := s.decoded(nsRes, kv) // every create reads its namespace: decode it once per revision
	if err != nil {
		return err
	}
	if registry.NamespaceTerminating(obj) && !q.res.CreateInTerminatingNamespace {
		return apierrors.NewForbidden(q.gr(), name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
	}
	return nil
}

// isDryRun reads dryRun=All; kube-apiserver accepts no other value.
func isDryRun(r *http.Request) (bool, error) {
	values := r.URL.Query()["dryRun"]
	for _, v := range values {
		if v != "All" {
			return false, apierrors.NewBadRequest(fmt.Sprintf("dryRun: Unsupported value: %q: supported values: \"All\"", v))
		}
	}
	return len(values) > 0, nil
}
