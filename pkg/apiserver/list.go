package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/storage"
)

// listItem is one object of a list: its stored form, and its decoded form
// when filtering or the output needed it.
type listItem struct {
	kv  storage.KV
	obj runtime.Object
}

// listPage is what a list request reads.
type listPage struct {
	items []listItem
	rev   int64
	// next is the continue token, "" on the last page.
	next string
}

// listParams are the list options of the query string.
type listParams struct {
	sel       selector
	limit     int
	cont      string
	rv        string
	rvMatch   string
	decodeAll bool
}

func readListParams(r *http.Request, q request) (listParams, error) {
	sel, err := parseSelector(r, q.res)
	if err != nil {
		return listParams{}, err
	}
	query := r.URL.Query()
	p := listParams{sel: sel, cont: query.Get("continue"), rv: query.Get("resourceVersion"), rvMatch: query.Get("resourceVersionMatch")}
	if l := query.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			return listParams{}, apierrors.NewBadRequest(fmt.Sprintf("invalid limit %q", l))
		}
		p.limit = n
	}
	switch p.rvMatch {
	case "", "NotOlderThan", "Exact":
	default:
		return listParams{}, apierrors.NewBadRequest(fmt.Sprintf("resourceVersionMatch: Unsupported value: %q: supported values: \"Exact\", \"NotOlderThan\"", p.rvMatch))
	}
	if p.rvMatch != "" && p.rv == "" {
		return listParams{}, apierrors.NewBadRequest("resourceVersionMatch is forbidden unless resourceVersion is provided")
	}
	if p.cont != "" && p.rv != "" && p.rv != "0" {
		return listParams{}, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
	}
	return p, nil
}

// list answers GET of a collection.
func (s *Server) list(w http.ResponseWriter, r *http.Request, q request) {
	out, err := negotiate(r, q.res)
	if err != nil {
		writeError(w, err)
		return
	}
	p, err := readListParams(r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	p.decodeAll = out.format != formatJSON || out.view != viewObject || q.res.Converted()
	page, err := s.readList(r.Context(), q, p)
	if err != nil {
		writeError(w, err)
		return
	}
	if !p.decodeAll {
		s.writeJSONList(w, out, q, page)
		return
	}
	list, err := s.typedList(q, page)
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeObject(w, out, http.StatusOK, list)
}

// readList reads one page of a collection: from the continue token's key
// on, filtered by the selectors, at most limit items.
func (s *Server) readList(ctx context.Context, q request, p listParams) (listPage, error) {
	q = p.sel.narrow(q)
	prefix := collectionPrefix(q.res, q.namespace)
	opts := storage.ListOptions{}
	var page listPage
	if p.cont != "" {
		tok, err := decodeContinue(p.cont)
		if err != nil {
			return page, err
		}
		opts.StartKey = prefix + tok.Start
		if tok.RV > 0 {
			opts.Revision = tok.RV
		}
	}
	// notOlderThan is the resourceVersion the answer must reach. It is
	// checked against what the store read, not against Revision() up
	// front: over etcd, Revision() trails the writes of other processes,
	// while a read is at etcd's current revision, so a version another
	// server just answered is never "too large" here.
	notOlderThan, err := parseResourceVersion(p.rv)
	if err != nil {
		return listPage{}, err
	}
	if notOlderThan > 0 && p.rvMatch == "Exact" {
		opts.Revision = notOlderThan
	}
	page, err = s.readPages(ctx, q, p, prefix, opts)
	if errors.Is(err, storage.ErrFutureRevision) || err == nil && page.rev < notOlderThan {
		return page, errTooLargeRV(notOlderThan, max(page.rev, s.store.Revision()))
	}
	return page, err
}

// errTooLargeRV answers a list at a resourceVersion the store has not
// reached, in kube-apiserver's words (504, so that clients retry).
func errTooLargeRV(rv, current int64) error {
	return apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", rv, current), 1)
}

// readPages reads the collection under prefix from opts on, page by
// page, until the list's limit.
func (s *Server) readPages(ctx context.Context, q request, p listParams, prefix string, opts storage.ListOptions) (listPage, error) {
	var page listPage
	if name, ok := p.sel.exactName(); ok && opts.StartKey == "" && (q.namespace != "" || !q.res.Namespaced) {
		return s.readOne(ctx, q, p, name, opts.Revision)
	}
	for {
		if p.limit > 0 {
			opts.Limit = p.limit - len(page.items)
		}
		res, err := s.store.List(ctx, prefix, opts)
		if errors.Is(err, storage.ErrExpired) {
			if p.cont != "" {
				return page, errContinueExpired(encodeContinue(-1, prefix, opts.StartKey))
			}
			return page, errTooOld(opts.Revision, oldestRevision(err, s.store.Revision()))
		}
		if err != nil {
			return page, err
		}
		if page.rev == 0 {
			// Later store pages read at the first one's revision, so the
			// result is one consistent snapshot.
			page.rev = res.Revision
			opts.Revision = res.Revision
		}
		for _, kv := range res.KVs {
			item, ok, err := s.filterItem(q, p, kv)
			if err != nil {
				return page, err
			}
			if ok {
				page.items = append(page.items, item)
			}
		}
		if !res.More || len(res.KVs) == 0 {
			return page, nil
		}
		last := res.KVs[len(res.KVs)-1].Key + "\x00"
		if p.limit > 0 && len(page.items) >= p.limit {
			page.next = encodeContinue(page.rev, prefix, last)
			return page, nil
		}
		opts.StartKey = last
	}
}

// readOne answers a list pinned to one name by fieldSelector
// metadata.name=X: with a single Get, or, for resourceVersionMatch=Exact
// (rev > 0), with a one-key list of the store at that revision, so the
// object is the one it was then.
func (s *Server) readOne(ctx context.Context, q request, p listParams, name string, rev int64) (listPage, error) {
	key := objectKey(q.res, q.namespace, name)
	var page listPage
	var kv storage.KV
	var err error
	if rev > 0 {
		page.rev = rev
		kv, err = s.getAt(ctx, collectionPrefix(q.res, q.namespace), key, rev)
	} else {
		page.rev = s.store.Revision()
		kv, err = s.store.Get(ctx, key)
	}
	if errors.Is(err, storage.ErrNotFound) {
		return page, nil
	}
	if err != nil {
		return page, err
	}
	if kv.ModRevision > page.rev {
		page.rev = kv.ModRevision
	}
	item, ok, err := s.filterItem(q, p, kv)
	if ok {
		page.items = append(page.items, item)
	}
	return page, err
}

// getAt reads key as it was at revision rev: the first key of a list of
// prefix from key on, at rev. storage.ErrNotFound if it did not exist
// then; the 410 when the store's history no longer reaches back to rev.
func (s *Server) getAt(ctx context.Context, prefix, key string, rev int64) (storage.KV, error) {
	res, err := s.store.List(ctx, prefix, storage.ListOptions{StartKey: key, Limit: 1, Revision: rev})
	if errors.Is(err, storage.ErrExpired) {
		return storage.KV{}, errTooOld(rev, oldestRevision(err, s.store.Revision()))
	}
	if err != nil {
		return storage.KV{}, err
	}
	if len(res.KVs) == 0 || res.KVs[0].Key != key {
		return storage.KV{}, storage.ErrNotFound
	}
	return res.KVs[0], nil
}

// filterItem decodes kv when the selectors or the output need it, and
// reports whether it is selected. A label selector alone on a spliced
// list reads only the labels.
func (s *Server) filterItem(q request, p listParams, kv storage.KV) (listItem, bool, error) {
	item := listItem{kv: kv}
	if p.decodeAll {
		obj, err := s.decoded(q.res, kv)
		if err != nil {
			return item, false, err
		}
		item.obj = obj
		return item, p.sel.matches(q.res, obj), nil
	}
	ok, obj, err := s.selects(q.res, p.sel, kv)
	item.obj = obj
	return item, ok, err
}

// writeJSONList streams a JSON list from the stored bytes, splicing each
// item's resourceVersion in; nothing is decoded.
func (s *Server) writeJSONList(w http.ResponseWriter, out output, q request, page listPage) {
	size := 256
	for _, it := range page.items {
		size += len(it.kv.Value) + 48 // a comma and the resourceVersion
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	fmt.Fprintf(buf, `{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":%q`,
		q.res.ListKind, q.res.GroupVersionKind().GroupVersion().String(), formatRV(page.rev))
	if page.next != "" {
		fmt.Fprintf(buf, `,"continue":%q`, page.next)
	}
	b := append(buf.Bytes(), `},"items":[`...)
	for i, it := range page.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSpliceRV(b, it.kv.Value, it.kv.ModRevision)
	}
	b = append(b, `]}`...)
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(finishJSON(out, b))
}

// typedList builds the kind's typed list from a page.
func (s *Server) typedList(q request, page listPage) (runtime.Object, error) {
	list := q.res.NewList()
	objs := make([]runtime.Object, 0, len(page.items))
	for _, it := range page.items {
		obj := it.obj
		if obj == nil {
			var err error
			if obj, err = s.decoded(q.res, it.kv); err != nil {
				return nil, err
			}
		}
		objs = append(objs, obj)
	}
	if err := meta.SetList(list, objs); err != nil {
		return nil, err
	}
	la, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	la.SetResourceVersion(formatRV(page.rev))
	la.SetContinue(page.next)
	list.GetObjectKind().SetGroupVersionKind(q.res.GroupVersionKind().GroupVersion().WithKind(q.res.ListKind))
	return list, nil
}
