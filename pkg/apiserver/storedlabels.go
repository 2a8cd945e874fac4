package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/apiserver/revcache"
	"github.com/miniapi/miniapi/pkg/storage"
)

// selects reports whether sel selects the stored object kv of res. A
// label selector alone reads only the labels (storedLabels); a field
// selector needs the object decoded, which it then returns too.
func (s *Server) selects(res *registry.Resource, sel selector, kv storage.KV) (bool, runtime.Object, error) {
	if sel.empty() {
		return true, nil, nil
	}
	if sel.fields.Empty() {
		set, err := s.storedLabels(kv)
		if err != nil {
			return false, nil, fmt.Errorf("reading the labels of %s: %w", kv.Key, err)
		}
		return sel.labels.Matches(set), nil, nil
	}
	obj, err := s.decoded(res, kv)
	if err != nil {
		return false, nil, err
	}
	return sel.matches(res, obj), obj, nil
}

// storedLabels is labelsOfStored through the server's cache of labels,
// which every write fills (rememberLabels): a list with a label selector
// then matches each object without reading its JSON at all.
func (s *Server) storedLabels(kv storage.KV) (labels.Set, error) {
	k := revcache.Key{Key: kv.Key, Revision: kv.ModRevision}
	return s.labels.Get(k, func() (labels.Set, int, error) {
		set, err := labelsOfStored(kv.Value)
		return set, labelsSize(kv.Key, set), err
	})
}

// rememberLabels keeps the labels of obj, just stored under key at rev:
// a copy, since obj goes back to a caller that may change it.
func (s *Server) rememberLabels(key string, rev int64, obj runtime.Object) {
	if m, err := meta.Accessor(obj); err == nil {
		set := labels.Set(maps.Clone(m.GetLabels()))
		s.labels.Put(revcache.Key{Key: key, Revision: rev}, labelsSize(key, set), set)
	}
}

// labelsSize is about the memory a cached label set takes: a small map
// and its strings.
func labelsSize(key string, set labels.Set) int {
	n := 256 + len(key)
	for k, v := range set {
		n += len(k) + len(v)
	}
	return n
}

// labelsOfStored reads metadata.labels from an object's stored JSON
// without decoding the rest of it, so that a list with only a label
// selector can still be spliced from the stored bytes. metadata is the
// first field the server stores (encodeForStore drops kind and
// apiVersion), and labels come before its long parts (managedFields), so
// the read stops early.
func labelsOfStored(value []byte) (labels.Set, error) {
	dec := json.NewDecoder(bytes.NewReader(value))
	if err := openObject(dec); err != nil {
		return nil, err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key != "metadata" {
			if err := skipValue(dec); err != nil {
				return nil, err
			}
			continue
		}
		if err := openObject(dec); err != nil {
			return nil, err
		}
		for dec.More() {
			field, err := dec.Token()
			if err != nil {
				return nil, err
			}
			if field == "labels" {
				var set labels.Set
				return set, dec.Decode(&set)
			}
			if err := skipValue(dec); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	return nil, nil
}

var errNotObject = errors.New("stored value is not a JSON object")

func openObject(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return errNotObject
	}
	return nil
}

func skipValue(dec *json.Decoder) error {
	var skip json.RawMessage
	return dec.Decode(&skip)
}
