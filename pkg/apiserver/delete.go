package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Finalizers the server adds for propagationPolicy; the garbage collector
// removes them.
const (
	finalizerForeground = metav1.FinalizerDeleteDependents // "foregroundDeletion"
	finalizerOrphan     = metav1.FinalizerOrphanDependents // "orphan"
)

// decodeDeleteOptions reads a DeleteOptions body. Clients label it with
// the resource's group version (client-go's typed clients), v1 or
// meta.k8s.io/v1; all mean the same type.
func decodeDeleteOptions(r *http.Request, q request, body []byte) (*metav1.DeleteOptions, error) {
	info, err := bodySerializer(r)
	if err != nil {
		return nil, err
	}
	if info.MediaType != mediaProtobuf {
		opts := &metav1.DeleteOptions{}
		if err := yaml.Unmarshal(body, opts); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request could not be decoded as DeleteOptions: %v", err))
		}
		if opts.Kind != "" && opts.Kind != "DeleteOptions" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was a %s, not DeleteOptions", opts.Kind))
		}
		return opts, nil
	}
	newOpts := func() runtime.Object { return &metav1.DeleteOptions{} }
	var last error
	for _, gv := range []schema.GroupVersion{q.res.GroupVersionKind().GroupVersion(), {Version: "v1"}, metav1.SchemeGroupVersion} {
		dec, err := decodeWith(info, "Ignore", body, gv.WithKind("DeleteOptions"), newOpts, nil)
		if err == nil {
			return dec.obj.(*metav1.DeleteOptions), nil
		}
		last = err
	}
	return nil, last
}

// readDeleteOptions reads DeleteOptions from the body (JSON or protobuf)
// and the query string, the query winning as in kube-apiserver.
func readDeleteOptions(w http.ResponseWriter, r *http.Request, q request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	if len(body) > 0 {
		if opts, err = decodeDeleteOptions(r, q, body); err != nil {
			return nil, err
		}
	}
	query := r.URL.Query()
	if v := query.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid gracePeriodSeconds %q", v))
		}
		opts.GracePeriodSeconds = &n
	}
	if v := query.Get("propagationPolicy"); v != "" {
		p := metav1.DeletionPropagation(v)
		opts.PropagationPolicy = &p
	}
	if v := query.Get("orphanDependents"); v != "" {
		b := v == "true"
		//lint:ignore SA1019 kube-apiserver still honours the deprecated field
		opts.OrphanDependents = &b
	}
	if _, ok := query["dryRun"]; ok {
		dry, err := isDryRun(r)
		if err != nil {
			return nil, err
		}
		if dry {
			opts.DryRun = []string{metav1.DryRunAll}
		}
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan:
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("propagationPolicy: Unsupported value: %q", *p))
		}
	}
	return opts, nil
}

// delete answers DELETE of one object.
func (s *Server) delete(w http.ResponseWriter, r *http.Request, q request) {
	out, err := negotiate(r, q.res)
	if err != nil {
		writeError(w, err)
		return
	}
	opts, err := readDeleteOptions(w, r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	obj, deleted, err := s.deleteObject(r.Context(), q, opts)
	if err != nil {
		writeError(w, err)
		return
	}
	if !deleted {
		s.writeObject(w, out, http.StatusOK, obj)
		return
	}
	m, _ := meta.Accessor(obj)
	out.view = viewObject
	s.writeObject(w, out, http.StatusOK, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: q.name, Group: q.res.Group, Kind: q.res.Resource, UID: m.GetUID()},
	})
}

// deleteObject deletes the named object, or only marks it (deletionTimestamp)
// when finalizers or a pod's grace period keep it. deleted says which.
func (s *Server) deleteObject(ctx context.Context, q request, opts *metav1.DeleteOptions) (obj runtime.Object, deleted bool, err error) {
	dryRun := len(opts.DryRun) > 0
	for attempt := 1; ; attempt++ {
		kv, err := s.getKV(ctx, q)
		if err != nil {
			return nil, false, err
		}
		cur, err := s.decodedCopy(q.res, kv)
		if err != nil {
			return nil, false, err
		}
		if err := checkPreconditions(q, cur, opts.Preconditions); err != nil {
			return nil, false, err
		}
		marked, keep, err := s.markDeleting(q, cur, opts)
		if err != nil {
			return nil, false, err
		}
		if keep {
			if !marked || dryRun {
				return cur, false, nil
			}
			b, err := encodeForStore(q.res, cur)
			if err != nil {
				return nil, false, err
			}
			// Marking is part of the delete: it passes a full quota.
			rev, err := s.store.Update(storage.ForDelete(ctx), kv.Key, b, kv.ModRevision)
			if errors.Is(err, storage.ErrConflict) && attempt < maxUpdateAttempts {
				continue
			}
			if err != nil {
				return nil, false, s.storeError(q, err)
			}
			s.rememberLabels(kv.Key, rev, cur)
			m, _ := meta.Accessor(cur)
			m.SetResourceVersion(formatRV(rev))
			afterWrite(ctx, q.res)
			return cur, false, nil
		}
		err = s.deleteStored(ctx, q, kv, cur, dryRun)
		if errors.Is(err, storage.ErrConflict) && attempt < maxUpdateAttempts {
			continue
		}
		if err != nil {
			return nil, false, s.storeError(q, err)
		}
		return cur, true, nil
	}
}

// checkPreconditions answers 409 when DeleteOptions' uid or
// resourceVersion precondition does not hold.
func checkPreconditions(q request, cur runtime.Object, pre *metav1.Preconditions) error {
	if pre == nil {
		return nil
	}
	m, err := meta.Accessor(cur)
	if err != nil {
		return err
	}
	if pre.UID != nil && *pre.UID != m.GetUID() {
		//lint:ignore ST1005 kube-apiserver's wording
		return apierrors.NewConflict(q.gr(), q.name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, m.GetUID()))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != m.GetResourceVersion() {
		//lint:ignore ST1005 kube-apiserver's wording
		return apierrors.NewConflict(q.gr(), q.name, fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, m.GetResourceVersion()))
	}
	return nil
}

// markDeleting applies a delete request to obj in place: the finalizer its
// propagationPolicy asks for, then the kind's delete rule. keep says the
// object must stay (finalizers, a grace period); changed says obj was
// modified and must be written.
func (s *Server) markDeleting(q request, obj runtime.Object, opts *metav1.DeleteOptions) (changed, keep bool, err error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, false, err
	}
	f := propagationFinalizer(opts)
	//lint:ignore SA1019 a deprecated orphanDependents is a choice too
	if f == "" && opts.PropagationPolicy == nil && opts.OrphanDependents == nil && q.res.OrphanByDefault {
		f = finalizerOrphan
	}
	if f != "" && !hasFinalizer(m, f) {
		m.SetFinalizers(append(m.GetFinalizers(), f))
		changed = true
	}
	marked, keep, err := q.res.Deleter().BeginDelete(obj, opts, s.now().UTC().Truncate(time.Second))
	if err != nil {
		return false, false, apierrors.NewForbidden(q.gr(), q.name, err)
	}
	return changed || marked, keep, nil
}

// propagationFinalizer is the finalizer a propagationPolicy asks for.
func propagationFinalizer(opts *metav1.DeleteOptions) string {
	if opts.PropagationPolicy != nil {
		switch *opts.PropagationPolicy {
		case metav1.DeletePropagationForeground:
			return finalizerForeground
		case metav1.DeletePropagationOrphan:
			return finalizerOrphan
		}
		return ""
	}
	//lint:ignore SA1019 kube-apiserver still honours the deprecated field
	if opts.OrphanDependents != nil && *opts.OrphanDependents {
		return finalizerOrphan
	}
	return ""
}

func hasFinalizer(m metav1.Object, f string) bool {
	for _, x := range m.GetFinalizers() {
		if x == f {
			return true
		}
	}
	return false
}

// deleteCollection answers DELETE of a collection: every selected object
// is deleted as a single DELETE would, and the list of them is returned.
func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, q request) {
	out, err := negotiate(r, q.res)
	if err != nil {
		writeError(w, err)
		return
	}
	opts, err := readDeleteOptions(w, r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	p, err := readListParams(r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	p.decodeAll, p.limit, p.cont = true, 0, ""
	page, err := s.readList(r.Context(), q, p)
	if err != nil {
		writeError(w, err)
		return
	}
	var done []listItem
	for _, it := range page.items {
		m, _ := meta.Accessor(it.obj)
		one := q
		one.namespace, one.name = m.GetNamespace(), m.GetName()
		obj, _, err := s.deleteObject(r.Context(), one, opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			writeError(w, err)
			return
		}
		done = append(done, listItem{obj: obj})
	}
	list, err := s.typedList(q, listPage{items: done, rev: s.store.Revision()})
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeObject(w, out, http.StatusOK, list)
}
