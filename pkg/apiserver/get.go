package apiserver

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/storage"
)

// get answers GET of one object, of a part of it (status: the whole
// object, as kube-apiserver answers), or of a view of it (scale).
func (s *Server) get(w http.ResponseWriter, r *http.Request, q request) {
	out, err := negotiate(r, q.res)
	if err != nil {
		writeError(w, err)
		return
	}
	// The current object is at least as new as any revision asked for,
	// but a malformed one is refused, as kube-apiserver does.
	if _, err := parseResourceVersion(r.URL.Query().Get("resourceVersion")); err != nil {
		writeError(w, err)
		return
	}
	kv, err := s.getKV(r.Context(), q)
	if err != nil {
		writeError(w, err)
		return
	}
	if q.sub == nil || q.sub.View == nil {
		s.writeKV(w, out, http.StatusOK, q.res, kv)
		return
	}
	obj, err := s.decoded(q.res, kv)
	if err != nil {
		writeError(w, err)
		return
	}
	out.view = viewObject
	s.writeObject(w, out, http.StatusOK, q.sub.View.Get(obj))
}

// getKV reads the named object, answering NotFound as kube-apiserver does.
func (s *Server) getKV(ctx context.Context, q request) (storage.KV, error) {
	kv, err := s.store.Get(ctx, q.key())
	if errors.Is(err, storage.ErrNotFound) {
		return kv, apierrors.NewNotFound(q.gr(), q.name)
	}
	return kv, err
}

// writeKV answers one stored object. Plain JSON is spliced from the stored
// bytes; every other output, and every converted resource, decodes it
// first.
func (s *Server) writeKV(w http.ResponseWriter, out output, code int, res *registry.Resource, kv storage.KV) {
	if out.format == formatJSON && out.view == viewObject && !res.Converted() {
		b := withTypeMeta(res.GroupVersionKind(), spliceRV(kv.Value, kv.ModRevision))
		w.Header().Set("Content-Type", mediaJSON)
		w.WriteHeader(code)
		_, _ = w.Write(finishJSON(out, b))
		return
	}
	obj, err := s.decoded(res, kv)
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeObject(w, out, code, obj)
}
