package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/apiserver/revcache"
	"github.com/miniapi/miniapi/pkg/storage"
)

// encodeForStore returns the bytes kept in the store for obj, an object of
// r: its JSON without kind, apiVersion and resourceVersion (the revision is
// the key's ModRevision, so storing it too would let the two disagree),
// converted first to the stored type when r is a converted resource. A
// custom resource served in a version other than its storage version is
// pruned to the storage version's schema here, in place (the answer shows
// what was stored, as kube's does), and not before: its managedFields
// name what the request set, in the request's version, as kube's do.
func encodeForStore(r *registry.Resource, obj runtime.Object) ([]byte, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if r.Schema != nil && r.Schema.ToStorage != nil {
			r.Schema.ToStorage(u)
		}
		return encodeUnstructured(u)
	}
	if r.StoredAs != nil {
		stored, err := r.StoredAs.ToStored(obj)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		obj = stored
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	rv := m.GetResourceVersion()
	gvk := obj.GetObjectKind().GroupVersionKind()
	m.SetResourceVersion("")
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	b, err := json.Marshal(obj)
	m.SetResourceVersion(rv)
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return b, err
}

// encodeUnstructured is encodeForStore for a custom resource: its fields
// but kind, apiVersion and metadata.resourceVersion, in key order.
func encodeUnstructured(u *unstructured.Unstructured) ([]byte, error) {
	out := make(map[string]interface{}, len(u.Object))
	for k, v := range u.Object {
		if k != "apiVersion" && k != "kind" {
			out[k] = v
		}
	}
	if m, ok := u.Object["metadata"].(map[string]interface{}); ok {
		meta := make(map[string]interface{}, len(m))
		for k, v := range m {
			if k != "resourceVersion" {
				meta[k] = v
			}
		}
		out["metadata"] = meta
	}
	return json.Marshal(out)
}

var (
	uidField      = []byte(`"uid":"`)
	metadataField = []byte(`"metadata":{`)
)

// spliceRV returns stored object bytes with metadata.resourceVersion set to
// rv, placed where encoding/json would put it (right after uid), without
// decoding the object. The server sets a uid on every object, and names and
// namespaces cannot hold quotes, so the first `"uid":"` is metadata's.
func spliceRV(value []byte, rv int64) []byte {
	return appendSpliceRV(make([]byte, 0, len(value)+len(`,"resourceVersion":""`)+20), value, rv)
}

// appendSpliceRV appends spliceRV(value, rv) to dst, so a list writes
// every object straight into its one buffer.
func appendSpliceRV(dst, value []byte, rv int64) []byte {
	at, comma := rvOffset(value)
	if at < 0 {
		return append(dst, value...)
	}
	dst = append(dst, value[:at]...)
	if comma == ',' {
		dst = append(dst, ',')
	}
	dst = append(dst, `"resourceVersion":"`...)
	dst = strconv.AppendInt(dst, rv, 10)
	dst = append(dst, '"')
	if comma == '}' {
		dst = append(dst, ',')
	}
	return append(dst, value[at:]...)
}

// rvOffset is where in value the resourceVersion goes, and whether a
// comma goes before it (',': after uid) or after it ('}': first in a
// non-empty metadata); -1 when value has no metadata.
func rvOffset(value []byte) (int, byte) {
	if i := bytes.Index(value, uidField); i >= 0 {
		start := i + len(uidField)
		if j := bytes.IndexByte(value[start:], '"'); j >= 0 {
			return start + j + 1, ','
		}
	}
	if i := bytes.Index(value, metadataField); i >= 0 {
		at := i + len(metadataField)
		if at < len(value) && value[at] != '}' {
			return at, '}'
		}
		return at, 0
	}
	return -1, 0
}

// withTypeMeta prefixes a stored object's JSON with its kind and apiVersion,
// as kube-apiserver answers single objects (list items carry neither).
func withTypeMeta(gvk schema.GroupVersionKind, value []byte) []byte {
	head := fmt.Sprintf(`{"kind":%q,"apiVersion":%q`, gvk.Kind, gvk.GroupVersion().String())
	out := make([]byte, 0, len(head)+len(value)+1)
	out = append(out, head...)
	if len(value) > 2 {
		out = append(out, ',')
	}
	return append(out, value[1:]...)
}

// decoded is decodeStored through the server's cache of decoded objects:
// the object is shared with every other reader of that revision, and must
// not be changed (a caller that changes it copies it first).
func (s *Server) decoded(r *registry.Resource, kv storage.KV) (runtime.Object, error) {
	return s.decodedObjects.Get(decodedKey(r, kv), func() (runtime.Object, int, error) {
		obj, err := decodeStored(r, kv)
		return obj, len(kv.Value), err
	})
}

// decodedCopy is an object of its own, for a caller that changes it: a
// copy of the shared one when a reader has decoded it, otherwise decoded
// and not kept. A writer reads a revision that its write will replace, so
// keeping it would only push out what readers still use.
func (s *Server) decodedCopy(r *registry.Resource, kv storage.KV) (runtime.Object, error) {
	if obj, ok := s.decodedObjects.Lookup(decodedKey(r, kv)); ok {
		return obj.DeepCopyObject(), nil
	}
	return decodeStored(r, kv)
}

func decodedKey(r *registry.Resource, kv storage.KV) revcache.Key {
	return revcache.Key{Owner: r, Key: kv.Key, Revision: kv.ModRevision}
}

// decodeStored turns a stored key into its typed object of r (converted
// from the stored type when r is a converted resource), with kind,
// apiVersion and resourceVersion set.
func decodeStored(r *registry.Resource, kv storage.KV) (runtime.Object, error) {
	newObj := r.New
	if r.StoredAs != nil {
		newObj = r.StoredAs.New
	}
	obj := newObj()
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return decodeUnstructured(r, kv, u)
	}
	if err := json.Unmarshal(kv.Value, obj); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	if r.StoredAs != nil {
		var err error
		if obj, err = r.StoredAs.FromStored(obj); err != nil {
			return nil, fmt.Errorf("converting %s: %w", kv.Key, err)
		}
	}
	obj.GetObjectKind().SetGroupVersionKind(r.GroupVersionKind())
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	return obj, nil
}

// decodeUnstructured is decodeStored for a custom resource, which is
// pruned and defaulted by the schema of the version it is read in, as
// kube-apiserver does on every read: a field the schema dropped since,
// or a default it added, shows at once.
func decodeUnstructured(r *registry.Resource, kv storage.KV, u *unstructured.Unstructured) (runtime.Object, error) {
	if err := utiljson.Unmarshal(kv.Value, &u.Object); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	u.SetGroupVersionKind(r.GroupVersionKind())
	if r.Schema != nil {
		r.Schema.Prune(u)
		r.Schema.Default(u)
	}
	u.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	return u, nil
}
