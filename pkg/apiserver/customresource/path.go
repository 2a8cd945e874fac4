package customresource

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"

	"k8s.io/client-go/util/jsonpath"
)

// fieldPath is a CRD's jsonPath (".spec.size") compiled once and shared
// by every request of the resource. A JSONPath keeps state while it walks
// range nodes, and the CRD validation lets such paths through, so each
// evaluation holds the lock.
type fieldPath struct {
	mu   sync.Mutex
	path *jsonpath.JSONPath
}

// compilePath compiles a CRD jsonPath as kube-apiserver does: wrapped in
// braces, with missing keys giving no result instead of an error.
func compilePath(name, jsonPath string) (*fieldPath, error) {
	p := jsonpath.New(name).AllowMissingKeys(true)
	if err := p.Parse("{" + jsonPath + "}"); err != nil {
		return nil, fmt.Errorf("jsonPath %q: %w", jsonPath, err)
	}
	return &fieldPath{path: p}, nil
}

// first is the first value the path finds in content. found is false when
// it finds nothing (a missing key) or the walk fails; more is true when
// the path found more than one value.
func (f *fieldPath) first(content map[string]interface{}) (value interface{}, found, more bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	results, err := f.path.FindResults(content)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil, false, false
	}
	more = len(results) > 1 || len(results[0]) > 1
	return results[0][0].Interface(), true, more
}

// text prints value as `kubectl get -o jsonpath` would: strings as they
// are, objects and arrays as JSON, anything else in Go's default format.
func (f *fieldPath) text(value interface{}) (string, error) {
	var buf bytes.Buffer
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.path.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
		return "", err
	}
	return buf.String(), nil
}
