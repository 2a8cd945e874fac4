package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"net/http/httptest"
	"testing"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

func TestSelectorNarrowsNamespace(t *testing.T) {
	pods, _ := builtinRegistry(t).Lookup(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	nodes, _ := builtinRegistry(t).Lookup(schema.GroupVersionResource{Version: "v1", Resource: "nodes"})
	cases := []struct {
		res      *registry.Resource
		ns, qs   string
		wantNS   string
		wantName string
	}{
		{pods, "", "fieldSelector=metadata.namespace%3Dkube-system", "kube-system", ""},
		{pods, "", "fieldSelector=metadata.namespace!%3Dkube-system", "", ""},
		{pods, "a", "fieldSelector=metadata.namespace%3Db", "a", ""},
		{pods, "a", "fieldSelector=metadata.name%3Dweb", "a", "web"},
		{nodes, "", "fieldSelector=metadata.name%3Dn1", "", "n1"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/x?"+c.qs, nil)
		sel, err := parseSelector(r, c.res)
		if err != nil {
			t.Fatal(err)
		}
		q := sel.narrow(request{res: c.res, namespace: c.ns})
		name, _ := sel.exactName()
		if q.namespace != c.wantNS || name != c.wantName {
			t.Errorf("%s %s: namespace %q name %q, want %q %q", c.res.Resource, c.qs, q.namespace, name, c.wantNS, c.wantName)
		}
	}
}

// builtinRegistry is the built-in registry without a store, for tests that
// only look resources up.
func builtinRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	reg, err := registry.NewBuiltin(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
