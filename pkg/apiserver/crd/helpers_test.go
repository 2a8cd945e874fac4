package crd

import (
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// widgets returns the reference CRD, decoded and defaulted as a server would.
func widgets(t testing.TB) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile("testdata/widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	SetDefaults(crd)
	return crd
}

// schemaOf returns the schema of the first version, to change in a test.
func schemaOf(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.JSONSchemaProps {
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

// setSpecSchema replaces the schema of .spec in the first version.
func setSpecSchema(crd *apiextensionsv1.CustomResourceDefinition, s apiextensionsv1.JSONSchemaProps) {
	schemaOf(crd).Properties["spec"] = s
}

// raw is a JSON value for a default or example.
func raw(json string) *apiextensionsv1.JSON {
	return &apiextensionsv1.JSON{Raw: []byte(json)}
}

func ptr[T any](v T) *T { return &v }

// wantErrors fails unless errs print exactly as want, in order. A want with "…"
// in it matches any error that starts with the text before "…" and ends with the
// text after it (kube prints whole schemas into some messages).
func wantErrors(t *testing.T, errs field.ErrorList, want ...string) {
	t.Helper()
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Error()
	}
	if len(got) != len(want) {
		t.Errorf("got %d errors, want %d:\ngot:  %q\nwant: %q", len(got), len(want), got, want)
		return
	}
	for i := range got {
		if !matches(got[i], want[i]) {
			t.Errorf("error %d:\ngot:  %s\nwant: %s", i, got[i], want[i])
		}
	}
}

func matches(got, want string) bool {
	prefix, suffix, elided := strings.Cut(want, "…")
	if !elided {
		return got == want
	}
	return len(got) >= len(prefix)+len(suffix) && strings.HasPrefix(got, prefix) && strings.HasSuffix(got, suffix)
}
