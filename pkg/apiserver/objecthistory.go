package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/miniapi/miniapi/pkg/apiserver/history"
	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/storage"
)

// historyPath serves an object's kept revisions. It is miniapi's own path,
// outside /api and /apis: a Kubernetes subresource would show in
// discovery, which then would differ from kube-apiserver's. GROUP is
// "core" for the core group, NAMESPACE "-" for a cluster-scoped kind.
const historyPath = "/miniapi/v1/history/{group}/{version}/{resource}/{namespace}/{name}"

// historyTimeout bounds one history read: replaying the kept events of one
// key takes milliseconds, waiting for the store's progress notification
// (for a deleted object) about a second.
const historyTimeout = 30 * time.Second

// objectHistory is the answer of historyPath.
type objectHistory struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	// Items are the kept revisions, oldest first.
	Items []historyEntry `json:"items"`
}

// historyEntry is one kept revision of the object.
type historyEntry struct {
	// Revision is the object's resourceVersion at this revision (for a
	// delete, the delete's revision).
	Revision string `json:"revision"`
	// Time is when the revision was written, as the object records it:
	// the writer's managedFields time, else (the writer's entry has none,
	// or the writer is unknown) the newest time the object holds, which
	// the write cannot precede. Absent when the object holds none.
	Time *metav1.Time `json:"time,omitempty"`
	// Manager is the field manager that wrote the revision ("-" when
	// unknown, as for a delete); Operation and Subresource are its
	// managedFields entry's.
	Manager     string `json:"manager"`
	Operation   string `json:"operation,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	// Changes are the fields that changed since the revision before,
	// "created", "deleted", or "(earlier history compacted)" for the
	// oldest kept state when it was not the create.
	Changes []string `json:"changes"`
	// Deleted says this revision deleted the object; Object is then the
	// object as it was deleted.
	Deleted bool            `json:"deleted"`
	Object  json.RawMessage `json:"object"`
}

// The Changes of revisions whose change is not a field diff.
const (
	changeCreated   = "created"
	changeDeleted   = "deleted"
	changeCompacted = "(earlier history compacted)"
)

// objectHistory answers GET historyPath.
func (s *Server) objectHistory(w http.ResponseWriter, r *http.Request) {
	q, err := s.historyRequest(mux.Vars(r))
	if err != nil {
		writeError(w, err)
		return
	}
	describeRequest(r, "get", q.res.Resource+"/history")
	ctx, cancel := context.WithTimeout(r.Context(), historyTimeout)
	defer cancel()
	revs, err := history.Read(ctx, s.store, q.key())
	switch {
	case errors.Is(err, storage.ErrNotFound):
		err = apierrors.NewNotFound(q.gr(), q.name)
	case errors.Is(err, context.DeadlineExceeded):
		err = apierrors.NewTimeoutError("reading the object's history took too long", 1)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	items, err := historyEntries(q.res, revs)
	if err != nil {
		writeError(w, err)
		return
	}
	b, err := json.Marshal(objectHistory{Kind: "ObjectHistory", APIVersion: "miniapi/v1", Items: items})
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", mediaJSON)
	_, _ = w.Write(finishJSON(output{pretty: negotiation.Pretty(r)}, b))
}

// historyRequest reads historyPath's variables into the object they name.
func (s *Server) historyRequest(v map[string]string) (request, error) {
	group := v["group"]
	if group == "core" {
		group = ""
	}
	res, ok := s.reg.Lookup(schema.GroupVersionResource{Group: group, Version: v["version"], Resource: v["resource"]})
	if !ok {
		return request{}, errPathNotFound()
	}
	q := request{res: res, name: v["name"]}
	switch ns := v["namespace"]; {
	case res.Namespaced && ns == "-":
		return request{}, apierrors.NewBadRequest("the history of a namespaced object needs its namespace")
	case res.Namespaced:
		q.namespace = ns
	case ns != "-":
		return request{}, apierrors.NewBadRequest(`the history of a cluster-scoped object takes "-" for its namespace`)
	}
	return q, nil
}

// historyEntries decodes each revision with the resource's own read path
// (converted and custom resources included) and says what changed and who
// changed it.
func historyEntries(res *registry.Resource, revs []history.Revision) ([]historyEntry, error) {
	items := make([]historyEntry, 0, len(revs))
	var prev map[string]any
	var prevFields []metav1.ManagedFieldsEntry
	for _, rev := range revs {
		obj, err := decodeStored(res, rev.KV)
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		var fields map[string]any
		if err := utiljson.Unmarshal(raw, &fields); err != nil {
			return nil, err
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		e := historyEntry{Revision: strconv.FormatInt(rev.KV.ModRevision, 10), Manager: "-", Deleted: rev.Deleted, Object: raw}
		var writer *metav1.ManagedFieldsEntry
		created := rev.KV.CreateRevision == rev.KV.ModRevision
		switch {
		case rev.Deleted:
			e.Changes = []string{changeDeleted}
		case created:
			e.Changes = []string{changeCreated}
			writer = findWriter(nil, m.GetManagedFields(), nil)
		case rev.Oldest:
			e.Changes = []string{changeCompacted}
		default:
			changes := history.Diff(prev, fields)
			e.Changes = history.Summarize(changes)
			writer = findWriter(prevFields, m.GetManagedFields(), changes)
		}
		if writer != nil {
			e.Manager, e.Operation, e.Subresource = writer.Manager, string(writer.Operation), writer.Subresource
		}
		e.Time = revisionTime(m, writer)
		items = append(items, e)
		prev, prevFields = fields, m.GetManagedFields()
	}
	return items, nil
}

func findWriter(prev, cur []metav1.ManagedFieldsEntry, changes []history.Change) *metav1.ManagedFieldsEntry {
	e, ok := history.Writer(prev, cur, changes)
	if !ok {
		return nil
	}
	return &e
}

// revisionTime is when a revision was written, as historyEntry.Time says.
func revisionTime(m metav1.Object, writer *metav1.ManagedFieldsEntry) *metav1.Time {
	if writer != nil && writer.Time != nil {
		return writer.Time
	}
	var newest *metav1.Time
	consider := func(t *metav1.Time) {
		if t != nil && !t.IsZero() && (newest == nil || t.After(newest.Time)) {
			newest = t
		}
	}
	created := m.GetCreationTimestamp()
	consider(&created)
	consider(m.GetDeletionTimestamp())
	for _, e := range m.GetManagedFields() {
		consider(e.Time)
	}
	return newest
}
