package apiserver

// Views: subresources served as another kind (a workload's
// autoscaling/v1 Scale). A client reads and writes the view; the server
// builds it from the parent object and writes what changed back into the
// parent, under the parent's rules.

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// viewOf is the view of parent, with the parent's identity and
// resourceVersion.
func viewOf(q request, parent runtime.Object) runtime.Object {
	view := q.sub.View.Get(parent)
	view.GetObjectKind().SetGroupVersionKind(q.sub.Kind)
	return view
}

// updateView answers PUT of a view: its resourceVersion, when set, is a
// precondition on the parent.
func (s *Server) updateView(w http.ResponseWriter, r *http.Request, q request, out output, dryRun bool) {
	dec, err := readObject(w, r, q.sub.Kind, q.sub.View.New, nil)
	if err != nil {
		writeError(w, err)
		return
	}
	m, err := meta.Accessor(dec.obj)
	if err != nil {
		writeError(w, err)
		return
	}
	if name := m.GetName(); name != "" && name != q.name {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, q.name)))
		return
	}
	s.writeView(w, r, q, out, dryRun, dec.warnings, func(view runtime.Object) (runtime.Object, error) {
		return s.trackView(r.Context(), q, view, dec.obj.DeepCopyObject())
	})
}

// patchView answers PATCH of a view (kubectl scale sends a merge patch),
// a server-side apply included.
func (s *Server) patchView(w http.ResponseWriter, r *http.Request, q request, out output, p *patchRequest, dryRun bool) {
	force := applyForce(r.URL.Query())
	s.writeView(w, r, q, out, dryRun, nil, func(view runtime.Object) (runtime.Object, error) {
		p.warnings = nil
		if p.typ == applyPatchType {
			return s.applyConfig(r.Context(), q, view, p.body, force)
		}
		patched, err := p.apply(view, q.sub.Kind, q.sub.View.New, nil)
		if err != nil {
			return nil, err
		}
		return s.trackView(r.Context(), q, view, patched)
	})
}

// writeView applies the view that want builds out of the current one (and
// its managedFields) to the parent, and answers the new view. The view's
// managedFields entries are the parent's that own what the view shows,
// translated both ways (scaleFields).
func (s *Server) writeView(w http.ResponseWriter, r *http.Request, q request, out output, dryRun bool, warnings []string,
	want func(view runtime.Object) (runtime.Object, error)) {
	obj, err := s.applyUpdate(r.Context(), q, dryRun, func(cur runtime.Object) (runtime.Object, error) {
		fields := scaleFields(q, cur)
		view := viewOf(q, cur)
		if entries, err := fields.ToSubresource(); err == nil {
			setManagedFields(view, entries)
		}
		view, err := want(view)
		if err != nil {
			return nil, err
		}
		if err := checkRV(q, cur, resourceVersionOf(view)); err != nil {
			return nil, err
		}
		if v := q.sub.View.Validate; v != nil {
			if errs := v(view); len(errs) > 0 {
				return nil, apierrors.NewInvalid(q.sub.Kind.GroupKind(), q.name, errs)
			}
		}
		q.sub.View.Apply(cur, view)
		if entries, err := fields.ToParent(managedFieldsOf(view)); err == nil {
			setManagedFields(cur, entries)
		}
		return cur, nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	addWarnings(w, warnings)
	out.view = viewObject
	s.writeObject(w, out, http.StatusOK, viewOf(q, obj))
}
