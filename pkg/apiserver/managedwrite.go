package apiserver

// The steps of a write that keep metadata.managedFields, in the order
// kube-apiserver takes them: a create or update records an Update entry
// for its manager after the kind's defaults (so defaulted fields belong
// to whoever created the object) and before anything the server adds
// later (ClusterIPs, admission defaults); an apply computes the object
// and its managedFields in one step; a view (scale) keeps its own
// entries, translated to and from the parent's.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// tracked reports whether writes to q's path keep managedFields. A
// server without field managers (the benchmarks' baseline) keeps none.
func (s *Server) tracked(q request) bool { return s.fields != nil }

// trackCreate records a create of obj in its managedFields, as an Update
// by the request's manager, and returns the object to store.
func (s *Server) trackCreate(ctx context.Context, q request, obj runtime.Object) runtime.Object {
	if !s.tracked(q) {
		setManagedFields(obj, nil)
		return obj
	}
	fm, err := s.fields.forRequest(q, s.reg)
	if err != nil {
		s.log.Error("no field manager", "resource", q.res.Resource, "err", err)
		setManagedFields(obj, nil)
		return obj
	}
	live := q.res.New()
	live.GetObjectKind().SetGroupVersionKind(q.res.GroupVersionKind())
	return fm.UpdateNoErrors(live, obj, managerOf(ctx))
}

// trackUpdate records the change from live to obj as an Update by the
// request's manager. A write to a part (status) adds an entry with its
// subresource; managedFields in its body are ignored, as in kube.
func (s *Server) trackUpdate(ctx context.Context, q request, live, obj runtime.Object) runtime.Object {
	if !s.tracked(q) {
		setManagedFields(obj, managedFieldsOf(live))
		return obj
	}
	fm, err := s.fields.forRequest(q, s.reg)
	if err != nil {
		s.log.Error("no field manager", "resource", q.res.Resource, "err", err)
		setManagedFields(obj, managedFieldsOf(live))
		return obj
	}
	return fm.UpdateNoErrors(live, obj, managerOf(ctx))
}

// applyConfig merges an apply configuration (JSON) into live for the
// request's manager: the 409 Conflict with kube's causes when another
// manager owns a field it sets to another value (unless force), and the
// fields it stops applying removed unless someone else owns them.
func (s *Server) applyConfig(ctx context.Context, q request, live runtime.Object, config []byte, force bool) (runtime.Object, error) {
	if !s.tracked(q) {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("server-side apply is not supported for %s", q.gr()))
	}
	fm, err := s.fields.forRequest(q, s.reg)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	patch := &unstructured.Unstructured{Object: map[string]interface{}{}}
	if err := utiljson.Unmarshal(config, &patch.Object); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	obj, err := fm.Apply(live, patch, managerOf(ctx), force)
	if _, isStatus := err.(apierrors.APIStatus); err != nil && !isStatus {
		// kube-apiserver answers the field manager's plain errors (a field
		// the schema does not know, a value of the wrong type) as a 500
		// with no reason and the error as its message.
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error(),
		}}
	}
	return obj, err
}

// unchangedApply answers the stored bytes (was) when an apply changed
// nothing but its managedFields' timestamps, and obj then keeps live's
// entries: such an apply stores nothing, as kube-apiserver ignores
// timestamp-only changes. Otherwise it answers b, obj untouched.
func unchangedApply(q request, obj, live runtime.Object, b, was []byte) ([]byte, error) {
	got, old := managedFieldsOf(obj), managedFieldsOf(live)
	if len(got) != len(old) {
		return b, nil
	}
	for i := range got {
		x, y := got[i], old[i]
		x.Time, y.Time = nil, nil
		if !apiequality.Semantic.DeepEqual(x, y) {
			return b, nil
		}
	}
	setManagedFields(obj, old)
	same, err := encodeForStore(q.res, obj)
	if err != nil || !bytes.Equal(same, was) {
		setManagedFields(obj, got)
		return b, err
	}
	return same, nil
}

// replicasPath is where every view miniapi serves (autoscaling/v1 Scale)
// finds its spec.replicas in the parent.
var replicasPath = fieldpath.MakePathOrDie("spec", "replicas")

// scaleFields translates managedFields between a parent and its Scale
// view, as kube's scale subresources do: the view's entries own
// spec.replicas; the parent's other fields stay with their managers.
func scaleFields(q request, parent runtime.Object) *managedfields.ScaleHandler {
	gv := q.res.GroupVersionKind().GroupVersion()
	path := replicasPath
	if p := q.sub.View.ReplicasPath; p != nil {
		path = fieldpath.MakePathOrDie(p...)
	}
	return managedfields.NewScaleHandler(managedFieldsOf(parent), gv,
		managedfields.ResourcePathMappings{gv.String(): path})
}

// trackView records a write of a view (PUT or patch) as an Update over
// the view built from the parent.
func (s *Server) trackView(ctx context.Context, q request, view, newView runtime.Object) (runtime.Object, error) {
	if s.fields == nil {
		return newView, nil
	}
	fm, err := s.fields.forRequest(q, s.reg)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return fm.UpdateNoErrors(view, newView, managerOf(ctx)), nil
}

func managedFieldsOf(obj runtime.Object) []metav1.ManagedFieldsEntry {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return m.GetManagedFields()
}

func setManagedFields(obj runtime.Object, entries []metav1.ManagedFieldsEntry) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(entries)
	}
}

// applyForce reads the force option of an apply.
func applyForce(query url.Values) bool {
	force, _ := strconv.ParseBool(query.Get("force"))
	return force
}
