package apiserver

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/storage"
)

// update answers PUT of an object, its status, or a namespace's finalize.
func (s *Server) update(w http.ResponseWriter, r *http.Request, q request) {
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
	m, err := checkRequestMeta(q, dec.obj)
	if err != nil {
		writeError(w, err)
		return
	}
	precondition := m.GetResourceVersion()
	obj, err := s.applyUpdate(r.Context(), q, dryRun, func(cur runtime.Object) (runtime.Object, error) {
		if err := checkRV(q, cur, precondition); err != nil {
			return nil, err
		}
		if q.subresource == "finalize" {
			ns := cur.(*corev1.Namespace)
			ns.Spec.Finalizers = dec.obj.(*corev1.Namespace).Spec.Finalizers
			return ns, nil
		}
		return dec.obj.DeepCopyObject(), nil
	})
	s.answerWrite(w, out, http.StatusOK, obj, dec.warnings, err)
}

// checkRV answers 409 when the client's resourceVersion is not the
// object's; an empty one is an unconditional write.
func checkRV(q request, cur runtime.Object, want string) error {
	if want == "" {
		return nil
	}
	m, err := meta.Accessor(cur)
	if err != nil {
		return err
	}
	if m.GetResourceVersion() != want {
		return errConflict(q.gr(), q.name)
	}
	return nil
}

// mutateFunc builds the requested object from the current one (a copy
// it may change). It runs again when a concurrent write wins the race.
type mutateFunc func(cur runtime.Object) (runtime.Object, error)

// maxUpdateAttempts bounds the retries of an update that lost a race it
// did not ask to lose (no resourceVersion precondition).
const maxUpdateAttempts = 16

// applyUpdate is every write to an existing object: read it, let mutate
// produce the new state, apply the kind's rules (what a subresource may
// change, system metadata, generation, validation), and store it with
// compare-and-swap. A write that changes nothing stores nothing and keeps
// the resourceVersion; a write that removes the last finalizer of an object
// being deleted deletes it.
func (s *Server) applyUpdate(ctx context.Context, q request, dryRun bool, mutate mutateFunc) (runtime.Object, error) {
	for attempt := 1; ; attempt++ {
		kv, err := s.getKV(ctx, q)
		if err != nil {
			return nil, err
		}
		cur, err := decodeStored(q.res, kv)
		if err != nil {
			return nil, err
		}
		obj, err := mutate(cur.DeepCopyObject())
		if err != nil {
			return nil, err
		}
		obj.GetObjectKind().SetGroupVersionKind(q.res.GroupVersionKind())
		switch q.subresource {
		case "status":
			q.res.Strategy.PrepareForStatusUpdate(obj, cur)
		case "finalize":
			// mutate changed only spec.finalizers, which the main
			// resource's PrepareForUpdate would put back.
		default:
			q.res.Strategy.PrepareForUpdate(obj, cur)
		}
		if err := keepSystemMeta(q.res, q.subresource, obj, cur); err != nil {
			return nil, err
		}
		if err := invalid(q.res, q.name, q.res.Strategy.ValidateUpdate(obj, cur)); err != nil {
			return nil, err
		}
		if deleteDuringUpdate(obj, cur) {
			if dryRun {
				return obj, nil
			}
			_, err := s.store.Delete(ctx, kv.Key, kv.ModRevision)
			if errors.Is(err, storage.ErrConflict) && attempt < maxUpdateAttempts {
				continue
			}
			return obj, s.storeError(q, err)
		}
		b, err := encodeForStore(obj)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(b, kv.Value) {
			return cur, nil
		}
		if dryRun {
			return obj, nil
		}
		rev, err := s.store.Update(ctx, kv.Key, b, kv.ModRevision)
		if errors.Is(err, storage.ErrConflict) && attempt < maxUpdateAttempts {
			continue
		}
		if err != nil {
			return nil, s.storeError(q, err)
		}
		m, _ := meta.Accessor(obj)
		m.SetResourceVersion(formatRV(rev))
		return obj, nil
	}
}

// deleteDuringUpdate reports whether a write to an object being deleted
// removed the last thing keeping it: its finalizers (and, for namespaces,
// spec.finalizers). Pods waiting out a grace period stay until deleted.
func deleteDuringUpdate(obj, old runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil || m.GetDeletionTimestamp() == nil || len(m.GetFinalizers()) > 0 {
		return false
	}
	if ns, ok := obj.(*corev1.Namespace); ok {
		return len(ns.Spec.Finalizers) == 0
	}
	o, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	g := o.GetDeletionGracePeriodSeconds()
	return g != nil && *g == 0
}
