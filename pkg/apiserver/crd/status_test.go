package crd

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestValidateStatusUpdate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change crdChange
		want   []string
	}{
		{"accepted names", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Status.AcceptedNames = *c.Spec.Names.DeepCopy()
		}, nil},
		{"bad accepted names", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{Plural: "Widgets", Kind: "Widget", ListKind: "Widget", ShortNames: []string{"w-"}}
		}, []string{
			`status.acceptedNames.plural: Invalid value: "Widgets": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`status.acceptedNames.shortNames[0]: Invalid value: "w-": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`status.acceptedNames.listKind: Invalid value: "Widget": kind and listKind may not be the same`,
		}},
		{"uid", func(c *apiextensionsv1.CustomResourceDefinition) { c.UID = "uid-2" }, []string{
			`metadata.uid: Invalid value: "uid-2": field is immutable`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := stored(t, true)
			crd := old.DeepCopy()
			tc.change(crd)
			wantErrors(t, ValidateStatusUpdate(crd, old), tc.want...)
		})
	}
}
