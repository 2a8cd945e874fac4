package crd

import (
	"strconv"
	"testing"
)

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", s, err)
	}
	return n
}

// TestRestart: CRDs and custom resources survive a restart of bin/miniapi
// with their resourceVersions, and are served as soon as it is ready.
func TestRestart(t *testing.T) {
	t.Parallel()
	s := start(t)
	createCRD(t, s, widgetCRD)
	createCRD(t, s, thingCRD)
	createIn(t, s, widgetYAML("w1", "  color: blue\n"), "widget.example.com/w1 created\n")
	ok(t, s, "patch", "widget", "w1", "--subresource=status", "--type=merge", "-p", `{"status":{"size":1}}`)
	createIn(t, s, "apiVersion: example.com/v2\nkind: Thing\nmetadata:\n  name: t1\nspec:\n  a: hello\n", "thing.example.com/t1 created\n")

	paths := []string{
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com",
		"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com",
		widgetsPath + "/w1",
		widgetsPath + "/w1/scale",
		"/apis/example.com/v2/namespaces/default/things/t1",
		"/apis/example.com/v1",
		"/apis/example.com/v2",
	}
	before := map[string]string{}
	for _, p := range paths {
		r := curl(t, s, "GET", p, "")
		if r.code != 200 {
			t.Fatalf("GET %s before the restart: %s", p, r.curlI())
		}
		before[p] = r.body
	}
	was := ok(t, s, "get", "widget", "w1", "-o", "jsonpath={.metadata.resourceVersion}").Stdout

	s.Restart()

	for _, p := range paths {
		// Byte for byte: resourceVersions, uids and timestamps included.
		if r := curl(t, s, "GET", p, ""); r.code != 200 || r.body != before[p] {
			t.Errorf("GET %s after the restart:\n got %s\nwant\n%s", p, r.curlI(), before[p])
		}
	}
	expectOut(t, s, "NAME   SIZE   COLOR\nw1     1      blue\n", "get", "wg")
	expectOut(t, s, "widget.example.com/w1 scaled\n", "scale", "widget", "w1", "--replicas=2")
	rv := ok(t, s, "get", "widget", "w1", "-o", "jsonpath={.metadata.resourceVersion}").Stdout
	if mustAtoi(t, rv) <= mustAtoi(t, was) {
		t.Errorf("a write after the restart got resourceVersion %s, not after %s", rv, was)
	}
}
