package apiserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/apiserver/revcache"
	"github.com/miniapi/miniapi/pkg/storage"
)

// checkSharedObjects fails t if any decoded object the server keeps
// (revcache) differs from a fresh decoding of the revision it was decoded
// from: someone changed an object every reader shares. Every test server
// runs it when its test ends, so the whole suite checks that no code path
// writes into a shared object.
func checkSharedObjects(t testing.TB, s *Server) {
	t.Helper()
	s.decodedObjects.Range(func(k revcache.Key, shared runtime.Object) {
		res := k.Owner.(*registry.Resource)
		kv, err := s.getAt(context.Background(), k.Key, k.Key, k.Revision)
		if errors.Is(err, storage.ErrNotFound) || err != nil && kv.Key == "" {
			return // history no longer reaches back to it
		}
		fresh, err := decodeStored(res, kv)
		if err != nil {
			t.Errorf("decoding %s at %d again: %v", k.Key, k.Revision, err)
			return
		}
		if !apiequality.Semantic.DeepEqual(shared, fresh) {
			t.Errorf("the shared decoded object of %s at revision %d was changed:\n%s", k.Key, k.Revision, diff.Diff(fresh, shared))
		}
	})
}

// TestSharedObjectsCheckFindsAChange proves checkSharedObjects can fail:
// it changes a shared object behind the server's back.
func TestSharedObjectsCheckFindsAChange(t *testing.T) {
	ts := startTestServer(t)
	ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`)
	ts.do(t, "GET", "/api/v1/namespaces/default/configmaps/c", "", "", "Accept", "application/yaml")
	changed := 0
	ts.api.decodedObjects.Range(func(k revcache.Key, obj runtime.Object) {
		if strings.HasSuffix(k.Key, "configmaps/default/c") {
			obj.(interface{ SetLabels(map[string]string) }).SetLabels(map[string]string{"changed": "yes"})
			changed++
		}
	})
	if changed == 0 {
		t.Fatal("the GET in YAML left no decoded object in the cache")
	}
	rec := &recordingTB{TB: t}
	checkSharedObjects(rec, ts.api)
	if !rec.failed {
		t.Error("checkSharedObjects did not notice a changed shared object")
	}
	ts.api.decodedObjects = nil // so the check when the test ends passes
}

// recordingTB records a failure instead of failing the test.
type recordingTB struct {
	testing.TB
	failed bool
}

func (r *recordingTB) Errorf(string, ...any) { r.failed = true }
func (r *recordingTB) Helper()               {}
