package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"

	"k8s.io/apimachinery/pkg/labels"
)

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
