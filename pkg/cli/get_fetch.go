package cli

import (
	"context"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/rest"
)

// The Accept headers kubectl sends: a server-side Table for the default
// and wide output, plain JSON for every other -o.
const (
	acceptTable = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	acceptJSON  = "application/json"
)

// ResourcePath is the API path of a collection (name "") or an object.
// namespace "" means all namespaces (or a cluster-scoped resource).
func ResourcePath(m *meta.RESTMapping, namespace, name string) string {
	gv := m.Resource.GroupVersion()
	var b strings.Builder
	if gv.Group == "" {
		b.WriteString("/api/" + gv.Version)
	} else {
		b.WriteString("/apis/" + gv.Group + "/" + gv.Version)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace && namespace != "" {
		b.WriteString("/namespaces/" + namespace)
	}
	b.WriteString("/" + m.Resource.Resource)
	if name != "" {
		b.WriteString("/" + name)
	}
	return b.String()
}

// listQuery is what a list (or watch) is filtered by.
type listQuery struct {
	LabelSelector string
	FieldSelector string
	Limit         int64
	Continue      string
	IncludeObject bool
}

func (q listQuery) apply(r *rest.Request) *rest.Request {
	if q.LabelSelector != "" {
		r = r.Param("labelSelector", q.LabelSelector)
	}
	if q.FieldSelector != "" {
		r = r.Param("fieldSelector", q.FieldSelector)
	}
	if q.Limit > 0 {
		r = r.Param("limit", strconv.FormatInt(q.Limit, 10))
	}
	if q.Continue != "" {
		r = r.Param("continue", q.Continue)
	}
	if q.IncludeObject {
		r = r.Param("includeObject", "Object")
	}
	return r
}

// getRaw sends one GET and returns the body; API errors come back as
// *errors.StatusError.
func getRaw(ctx context.Context, c rest.Interface, path, accept string, q listQuery) ([]byte, error) {
	req := q.apply(c.Get().AbsPath(path).SetHeader("Accept", accept))
	return doRaw(ctx, req)
}

// doRaw sends a request and returns the response body. An error response
// that carries a Status becomes an *errors.StatusError with the server's
// own message (client-go's generic error would hide it).
func doRaw(ctx context.Context, req *rest.Request) ([]byte, error) {
	body, err := req.Do(ctx).Raw()
	if err == nil {
		return body, nil
	}
	var st metav1.Status
	if len(body) > 0 && utiljson.Unmarshal(body, &st) == nil && st.Kind == "Status" && st.Status == metav1.StatusFailure {
		return nil, &apierrors.StatusError{ErrStatus: st}
	}
	return nil, err
}

// decodeTable decodes a Table response; a server that answered with a
// plain object or list instead gets a NAME/AGE table built on the client.
func decodeTable(body []byte) (*metav1.Table, error) {
	var probe struct {
		Kind string `json:"kind"`
	}
	if err := utiljson.Unmarshal(body, &probe); err != nil {
		return nil, err
	}
	if probe.Kind != "Table" {
		obj, err := decodeObject(body)
		if err != nil {
			return nil, err
		}
		return fallbackTable(obj), nil
	}
	t := &metav1.Table{}
	if err := utiljson.Unmarshal(body, t); err != nil {
		return nil, err
	}
	decodeRowObjects(t)
	return t, nil
}

// decodeRowObjects decodes the object of every row, as kubectl does before
// printing: the table printer reads the NAMESPACE and label columns from
// it. A row whose object does not decode keeps only its cells.
func decodeRowObjects(t *metav1.Table) {
	for i := range t.Rows {
		row := &t.Rows[i]
		if len(row.Object.Raw) == 0 || row.Object.Object != nil {
			continue
		}
		var m map[string]any
		if utiljson.Unmarshal(row.Object.Raw, &m) == nil && m != nil {
			row.Object.Object = &unstructured.Unstructured{Object: m}
		}
	}
}

// decodeObject decodes a JSON object or list. List items get the
// apiVersion and kind the list implies, as client-go does, and
// managedFields are dropped as kubectl does by default.
func decodeObject(body []byte) (map[string]any, error) {
	return decodeObjectFields(body, false)
}

// decodeObjectFields is decodeObject that keeps managedFields when asked
// (get --show-managed-fields).
func decodeObjectFields(body []byte, keepManaged bool) (map[string]any, error) {
	var obj map[string]any
	if err := utiljson.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	if items, ok := listItems(obj); ok {
		apiVersion, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		kind = strings.TrimSuffix(kind, "List")
		for _, it := range items {
			if _, ok := it["apiVersion"]; !ok && apiVersion != "" {
				it["apiVersion"] = apiVersion
			}
			if _, ok := it["kind"]; !ok && kind != "" {
				it["kind"] = kind
			}
			if !keepManaged {
				dropManagedFields(it)
			}
		}
		return obj, nil
	}
	if !keepManaged {
		dropManagedFields(obj)
	}
	return obj, nil
}

func dropManagedFields(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
}

// metaString reads metadata.<key> (or a list's metadata) as a string.
func metaString(obj map[string]any, key string) string {
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md[key].(string)
	return s
}

// fallbackTable is kubectl's default NAME/AGE layout for a resource whose
// server sent no Table.
func fallbackTable(obj map[string]any) *metav1.Table {
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Age", Type: "string"},
	}}
	items, isList := listItems(obj)
	if !isList {
		items = []map[string]any{obj}
	} else {
		t.ResourceVersion = metaString(obj, "resourceVersion")
		t.Continue = metaString(obj, "continue")
	}
	for _, it := range items {
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{metaString(it, "name"), translateAge(metaString(it, "creationTimestamp"))},
			Object: runtime.RawExtension{Object: &unstructured.Unstructured{Object: it}},
		})
	}
	return t
}

// listItems returns the items of a decoded list object.
func listItems(obj map[string]any) ([]map[string]any, bool) {
	raw, ok := obj["items"].([]any)
	if !ok {
		if _, isList := obj["items"]; !isList {
			return nil, false
		}
	}
	items := make([]map[string]any, 0, len(raw))
	for _, it := range raw {
		if m, ok := it.(map[string]any); ok {
			items = append(items, m)
		}
	}
	return items, true
}

// translateAge is kubectl's AGE text for an RFC 3339 timestamp.
func translateAge(ts string) string {
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t))
}
