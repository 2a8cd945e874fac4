package crd

import (
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func namedCRD(plural, singular, kind string, short ...string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com",
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: singular, Kind: kind, ListKind: kind + "List", ShortNames: short},
	}}
}

func TestAcceptNames(t *testing.T) {
	taken := newTakenNames()
	taken.add(namedCRD("widgets", "widget", "Widget", "wg").Spec.Names)
	cases := []struct {
		name                  string
		crd                   *apiextensionsv1.CustomResourceDefinition
		reason, message       string
		established           apiextensionsv1.ConditionStatus
		acceptedKind          string
		acceptedPlural        string
		acceptedShortNamesLen int
	}{
		{"free", namedCRD("gizmos", "gizmo", "Gizmo", "gz"), "NoConflicts", "no conflicts found", apiextensionsv1.ConditionTrue, "Gizmo", "gizmos", 1},
		{"kind taken", withListKind(namedCRD("gizmos", "gizmo", "Widget"), "GizmoList"), "KindConflict", `"Widget" is already in use`, apiextensionsv1.ConditionFalse, "", "gizmos", 0},
		{"singular taken", namedCRD("gizmos", "widget", "Gizmo"), "SingularConflict", `"widget" is already in use`, apiextensionsv1.ConditionFalse, "Gizmo", "gizmos", 0},
		{"short name taken", namedCRD("gizmos", "gizmo", "Gizmo", "wg", "gz"), "ShortNamesConflict", `"wg" is already in use`, apiextensionsv1.ConditionFalse, "Gizmo", "gizmos", 0},
		{"plural is another's short name", namedCRD("wg", "gizmo", "Gizmo"), "PluralConflict", `"wg" is already in use`, apiextensionsv1.ConditionFalse, "Gizmo", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !acceptNames(tc.crd, taken) {
				t.Fatal("status unchanged")
			}
			c := apihelpers.FindCRDCondition(tc.crd, apiextensionsv1.NamesAccepted)
			if c == nil || c.Reason != tc.reason || c.Message != tc.message {
				t.Errorf("NamesAccepted %+v, want %s: %s", c, tc.reason, tc.message)
			}
			if e := apihelpers.FindCRDCondition(tc.crd, apiextensionsv1.Established); e == nil || e.Status != tc.established {
				t.Errorf("Established %+v, want %s", e, tc.established)
			}
			got := tc.crd.Status.AcceptedNames
			if got.Kind != tc.acceptedKind || got.Plural != tc.acceptedPlural || len(got.ShortNames) != tc.acceptedShortNamesLen {
				t.Errorf("accepted %+v", got)
			}
			if acceptNames(tc.crd, taken) {
				t.Error("a second pass changed the status again")
			}
		})
	}
}

// TestAcceptedNamesStayTheirs: names a CRD holds are its own even when
// they appear among the taken ones (its own entry, or an older claim).
func TestAcceptedNamesStayTheirs(t *testing.T) {
	crd := namedCRD("widgets", "widget", "Widget", "wg")
	acceptNames(crd, newTakenNames())
	taken := newTakenNames()
	taken.add(crd.Spec.Names)
	acceptNames(crd, taken)
	if !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted) || !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		t.Errorf("conditions %+v", crd.Status.Conditions)
	}
}

func withListKind(crd *apiextensionsv1.CustomResourceDefinition, listKind string) *apiextensionsv1.CustomResourceDefinition {
	crd.Spec.Names.ListKind = listKind
	return crd
}
