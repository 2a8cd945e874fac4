package crd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// doohickeyCRD is in category "all" and has a short name, so `kubectl get
// all` lists its objects.
const doohickeyCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: doohickeys.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: doohickeys
    singular: doohickey
    kind: Doohickey
    shortNames: [dh]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// TestKubectlVerbs: edit, client-side and server-side apply, delete,
// short names and categories on custom resources.
func TestKubectlVerbs(t *testing.T) {
	t.Parallel()
	s := start(t)
	createCRD(t, s, widgetCRD)
	createCRD(t, s, doohickeyCRD)

	t.Run("Edit", func(t *testing.T) {
		createIn(t, s, widgetYAML("we", "  color: blue\n"), "widget.example.com/we created\n")
		editor := filepath.Join(t.TempDir(), "editor.sh")
		if err := os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/color: blue/color: red/; s/size: 1/size: 7/' \"$1\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		res := s.RunEnv("kubectl", []string{"KUBE_EDITOR=" + editor}, "edit", "widget", "we")
		if res.ExitCode != 0 || res.Stdout != "widget.example.com/we edited\n" {
			t.Fatalf("kubectl edit: %s", res)
		}
		expectOut(t, s, `{"color":"red","size":7}`, "get", "wg", "we", "-o", "jsonpath={.spec}")
		expectOut(t, s, "2", "get", "wg", "we", "-o", "jsonpath={.metadata.generation}")
	})

	t.Run("ClientSideApply", func(t *testing.T) {
		path := file(t, "wa.yaml", widgetYAML("wa", "  color: blue\n  size: 2\n"))
		expectOut(t, s, "widget.example.com/wa created\n", "apply", "-f", path)
		expectOut(t, s, "widget.example.com/wa unchanged\n", "apply", "-f", path)
		if err := os.WriteFile(path, []byte(widgetYAML("wa", "  color: blue\n  size: 3\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		expectOut(t, s, "widget.example.com/wa configured\n", "apply", "-f", path)
		expectOut(t, s, `{"color":"blue","size":3}`, "get", "widget", "wa", "-o", "jsonpath={.spec}")
		expectOut(t, s, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"annotations":{},"name":"wa","namespace":"default"},"spec":{"color":"blue","size":3}}
`, "get", "widget", "wa", "-o", `jsonpath={.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`)
		// Dropping a field from the manifest removes it (three-way merge
		// patch, as JSON merge patch: custom resources have no strategies);
		// the default fills size again.
		if err := os.WriteFile(path, []byte(widgetYAML("wa", "  color: red\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		expectOut(t, s, "widget.example.com/wa configured\n", "apply", "-f", path)
		expectOut(t, s, `{"color":"red","size":1}`, "get", "widget", "wa", "-o", "jsonpath={.spec}")
		expectOut(t, s, "widget.example.com \"wa\" deleted from default namespace\n", "delete", "widget", "wa")
		expect(t, s, "", 1, "", "Error from server (NotFound): widgets.example.com \"wa\" not found\n", "get", "widget", "wa")
	})

	t.Run("ServerSideApply", func(t *testing.T) {
		path := file(t, "wb.yaml", widgetYAML("wb", "  color: blue\n"))
		expectOut(t, s, "widget.example.com/wb serverside-applied\n", "apply", "--server-side", "-f", path)
		expectOut(t, s, "widget.example.com/wb serverside-applied\n", "apply", "--server-side", "-f", path)
		// The default (size 1) is filled in but owned by no manager.
		expectOut(t, s, `{"color":"blue","size":1}`, "get", "widget", "wb", "-o", "jsonpath={.spec}")
		got := timeValue.ReplaceAllString(ok(t, s, "get", "widget", "wb", "-o", "jsonpath={.metadata.managedFields}").Stdout, `"time":"T"`)
		if want := `[{"apiVersion":"example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:color":{}}},"manager":"kubectl","operation":"Apply","time":"T"}]`; got != want {
			t.Errorf("managedFields after apply:\n got %s\nwant %s", got, want)
		}
		other := file(t, "wb-other.yaml", widgetYAML("wb", "  color: red\n"))
		res := kubectl(s, "", "apply", "--server-side", "--field-manager=other", "-f", other)
		if res.ExitCode != 1 || !strings.HasPrefix(res.Stderr, "error: Apply failed with 1 conflict: conflict with \"kubectl\": .spec.color\n") {
			t.Errorf("conflicting apply: %s", res)
		}
		// The CEL rule sees the applied object with its defaults.
		big := file(t, "wb-big.yaml", widgetYAML("wb", "  color: blue\n  size: 7\n"))
		expect(t, s, "", 1, "", "The Widget \"wb\" is invalid: spec: Invalid value: big widgets must be red\n", "apply", "--server-side", "-f", big)
	})

	t.Run("ShortNamesAndCategories", func(t *testing.T) {
		ok(t, s, "create", "namespace", "tools")
		createIn(t, s, "apiVersion: example.com/v1\nkind: Doohickey\nmetadata:\n  name: d1\n  namespace: tools\nspec:\n  x: 1\n", "doohickey.example.com/d1 created\n")
		expectAged(t, s, "NAME   AGE\nd1     0s\n", "get", "dh", "-n", "tools")
		expectOut(t, s, "NAME   SIZE   COLOR\nwe     7      red\n", "get", "wg", "we")
		// The namespace has nothing else of category all (no Service).
		expectAged(t, s, "NAME                       AGE\ndoohickey.example.com/d1   0s\n", "get", "all", "-n", "tools")
		res := ok(t, s, "get", "all")
		if !strings.Contains(res.Stdout, "service/kubernetes") || strings.Contains(res.Stdout, "doohickey") || strings.Contains(res.Stdout, "widget") {
			t.Errorf("kubectl get all in default: want the kubernetes Service and no custom resources (widgets are not in category all):\n%s", res.Stdout)
		}
		expectOut(t, s, `NAME         SHORTNAMES   APIVERSION       NAMESPACED   KIND        VERBS                                                        CATEGORIES
doohickeys   dh           example.com/v1   true         Doohickey   delete,deletecollection,get,list,patch,create,update,watch   all
widgets      wg           example.com/v1   true         Widget      delete,deletecollection,get,list,patch,create,update,watch   
`, "api-resources", "--api-group=example.com", "-o", "wide")
	})
}

var timeValue = regexp.MustCompile(`"time":"[^"]*"`)
