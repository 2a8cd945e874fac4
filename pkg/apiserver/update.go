package apiserver

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/miniapi/miniapi/pkg/storage"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// update answers PUT of an object, of a part of it (status, finalize), or
// of a view of it (scale).
func (s *Server) update(w http.ResponseWriter, r *http.Request, q request) {
	out, dryRun, err := negotiateWrite(r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	if q.sub != nil && q.sub.View != nil {
		s.updateView(w, r, q, out, dryRun)
		return
	}
	dec, err := readObject(w, r, q.res.GroupVersionKind(), q.res.New, q.res.Schema)
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
		return dec.obj.DeepCopyObject(), nil
	})
	s.answerWrite(w, q, out, http.StatusOK, obj, dec.warnings, err)
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
// change, system metadata, generation, the kind's hooks, validation), and
// store it with compare-and-swap. A write that changes nothing stores
// nothing and keeps the resourceVersion; a write that removes the last
// thing keeping an object being deleted deletes it.
func (s *Server) applyUpdate(ctx context.Context, q request, dryRun bool, mutate mutateFunc) (runtime.Object, error) {
	for attempt := 1; ; attempt++ {
		obj, err := s.updateOnce(ctx, q, dryRun, mutate)
		if errors.Is(err, storage.ErrConflict) && attempt < maxUpdateAttempts {
			continue
		}
		if errors.Is(err, storage.ErrConflict) {
			return nil, s.storeError(q, err)
		}
		return obj, err
	}
}

// updateOnce is one attempt of applyUpdate; storage.ErrConflict says a
// concurrent write won and the attempt may be made again.
func (s *Server) updateOnce(ctx context.Context, q request, dryRun bool, mutate mutateFunc) (runtime.Object, error) {
	prepare, validate := updateRules(q)
	kv, err := s.getKV(ctx, q)
	if err != nil {
		return nil, err
	}
	cur, err := s.decodedCopy(q.res, kv)
	if err != nil {
		return nil, err
	}
	obj, err := mutate(cur.DeepCopyObject())
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(q.res.GroupVersionKind())
	prepare(obj, cur)
	if err := keepSystemMeta(q, obj, cur); err != nil {
		return nil, err
	}
	if !q.applied && (q.sub == nil || q.sub.View == nil) {
		// An apply computed its managedFields; a view wrote its own
		// into the parent (writeView).
		obj = s.trackUpdate(ctx, q, cur, obj)
	}
	if q.res.Deleter().Released(obj) && deletionStarted(obj) {
		if err := invalid(q.res, q.name, validate(obj, cur)); err != nil {
			return nil, err
		}
		return obj, s.deleteStored(ctx, q, kv, cur, dryRun)
	}
	stored := false
	if hooks := q.res.Hooks; hooks != nil && usesMainRules(q) {
		finish, err := hooks.BeginUpdate(ctx, obj, cur, dryRun)
		if err != nil {
			return nil, err
		}
		defer func() { finish(ctx, stored) }()
	}
	if err := invalid(q.res, q.name, validate(obj, cur)); err != nil {
		return nil, err
	}
	b, err := encodeForStore(q.res, obj)
	if err != nil {
		return nil, err
	}
	if q.applied && !bytes.Equal(b, kv.Value) {
		if b, err = unchangedApply(q, obj, cur, b, kv.Value); err != nil {
			return nil, err
		}
	}
	if bytes.Equal(b, kv.Value) {
		stored = true // nothing changed: nothing to give back either
		return cur, nil
	}
	if dryRun {
		return obj, nil
	}
	rev, err := s.store.Update(ctx, kv.Key, b, kv.ModRevision)
	if errors.Is(err, storage.ErrConflict) {
		return nil, err
	}
	if err != nil {
		return nil, s.storeError(q, err)
	}
	stored = true
	s.rememberLabels(kv.Key, rev, obj)
	m, _ := meta.Accessor(obj)
	m.SetResourceVersion(formatRV(rev))
	afterWrite(ctx, q.res)
	return obj, nil
}

// afterWrite runs res's AfterWrite, if any.
func afterWrite(ctx context.Context, res *registry.Resource) {
	if res.AfterWrite != nil {
		res.AfterWrite(ctx)
	}
}

// deleteStored removes a stored object (unless dryRun) and tells the
// kind's hooks; storage.ErrConflict says a concurrent write won.
func (s *Server) deleteStored(ctx context.Context, q request, kv storage.KV, cur runtime.Object, dryRun bool) error {
	if dryRun {
		return nil
	}
	_, err := s.store.Delete(ctx, kv.Key, kv.ModRevision)
	if errors.Is(err, storage.ErrConflict) {
		return err
	}
	if err != nil {
		return s.storeError(q, err)
	}
	if hooks := q.res.Hooks; hooks != nil {
		hooks.AfterDelete(ctx, cur)
	}
	afterWrite(ctx, q.res)
	return nil
}

// usesMainRules says whether a write follows the main resource's rules
// (the object itself, or a view of it) rather than a part's own (status).
func usesMainRules(q request) bool {
	return q.sub == nil || q.sub.View != nil
}

// updateRules are the prepare and validate steps of a write: a part's own
// (status, finalize), or the main resource's for the object and its views.
func updateRules(q request) (prepare func(obj, old runtime.Object), validate func(obj, old runtime.Object) field.ErrorList) {
	if !usesMainRules(q) && q.sub.PrepareForUpdate != nil {
		return q.sub.PrepareForUpdate, q.sub.ValidateUpdate
	}
	return q.res.Strategy.PrepareForUpdate, q.res.Strategy.ValidateUpdate
}

// deletionStarted reports whether obj has a deletionTimestamp.
func deletionStarted(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err == nil && m.GetDeletionTimestamp() != nil
}
