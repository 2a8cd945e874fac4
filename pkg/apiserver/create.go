package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/storage"
)

// create answers POST to a collection.
func (s *Server) create(w http.ResponseWriter, r *http.Request, q request) {
	out, dryRun, err := negotiateWrite(r)
	if err != nil {
		writeError(w, err)
		return
	}
	dec, err := readObject(w, r, q.res.GroupVersionKind(), q.res.New)
	if err != nil {
		writeError(w, err)
		return
	}
	obj, err := s.createObject(r.Context(), q, dec.obj, dryRun)
	s.answerWrite(w, out, http.StatusCreated, obj, dec.warnings, err)
}

// maxGenerateNameAttempts bounds the retries when a generated name is
// taken.
const maxGenerateNameAttempts = 8

// createObject applies the server's rules to a new object and stores it
// (unless dryRun), returning it with its resourceVersion.
func (s *Server) createObject(ctx context.Context, q request, obj runtime.Object, dryRun bool) (runtime.Object, error) {
	m, err := s.prepareCreate(q, obj)
	if err != nil {
		return nil, err
	}
	if q.res.Namespaced {
		if err := s.checkNamespace(ctx, q, m.GetNamespace(), m.GetName()); err != nil {
			return nil, err
		}
	}
	if err := invalid(q.res, m.GetName(), q.res.Strategy.Validate(obj)); err != nil {
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
		b, err := encodeForStore(obj)
		if err != nil {
			return nil, err
		}
		rev, err := s.store.Create(ctx, objectKey(q.res, m.GetNamespace(), m.GetName()), b)
		if errors.Is(err, storage.ErrExists) {
			if m.GetGenerateName() != "" && attempt < maxGenerateNameAttempts {
				m.SetName(generateName(m.GetGenerateName()))
				continue
			}
			return nil, apierrors.NewAlreadyExists(q.gr(), m.GetName())
		}
		if err != nil {
			return nil, err
		}
		m.SetResourceVersion(formatRV(rev))
		return obj, nil
	}
}

var namespaces, _ = registry.Lookup("", "v1", "namespaces")

// checkNamespace refuses objects in a namespace that does not exist (404)
// or is being deleted (403), as kube-apiserver's NamespaceLifecycle does.
func (s *Server) checkNamespace(ctx context.Context, q request, ns, name string) error {
	kv, err := s.store.Get(ctx, objectKey(namespaces, "", ns))
	if errors.Is(err, storage.ErrNotFound) {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, ns)
	}
	if err != nil {
		return err
	}
	obj, err := decodeStored(namespaces, kv)
	if err != nil {
		return err
	}
	nsObj := obj.(*corev1.Namespace)
	terminating := nsObj.DeletionTimestamp != nil || nsObj.Status.Phase == corev1.NamespaceTerminating
	if terminating && q.res.Kind != "Event" {
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
