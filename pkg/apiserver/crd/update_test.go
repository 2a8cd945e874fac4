package crd

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// stored returns the reference CRD as the server keeps it after create: with
// a second served version v2, and Established when established is set.
func stored(t *testing.T, established bool) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := widgets(t)
	v2 := *crd.Spec.Versions[0].DeepCopy()
	v2.Name, v2.Storage = "v2", false
	v2.Schema.OpenAPIV3Schema.Description = "v2" // a schema of its own
	crd.Spec.Versions = append(crd.Spec.Versions, v2)
	PrepareForCreate(crd)
	crd.ResourceVersion, crd.UID, crd.Generation = "7", "uid-1", 1
	crd.CreationTimestamp = metav1.Unix(1_700_000_000, 0)
	if errs := Validate(crd); len(errs) > 0 {
		t.Fatalf("stored CRD is invalid: %v", errs)
	}
	if established {
		crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	}
	return crd
}

func TestValidateUpdate(t *testing.T) {
	for _, tc := range []struct {
		name        string
		established bool
		change      crdChange
		want        []string
	}{
		{"no change", true, func(c *apiextensionsv1.CustomResourceDefinition) {}, nil},
		{"scope once established", true, func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = apiextensionsv1.ClusterScoped }, []string{
			`spec.scope: Invalid value: "Cluster": field is immutable`,
		}},
		{"kind once established", true, func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.Kind, c.Spec.Names.ListKind = "Gadget", "GadgetList"
		}, []string{
			`spec.names.kind: Invalid value: "Gadget": field is immutable`,
		}},
		{"scope and kind before established", false, func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Scope = apiextensionsv1.ClusterScoped
			c.Spec.Names.Kind, c.Spec.Names.ListKind = "Gadget", "GadgetList"
		}, nil},
		{"group", false, func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "example.org"
			c.Name = "widgets.example.org"
		}, []string{
			`metadata.name: Invalid value: "widgets.example.org": field is immutable`,
			`spec.group: Invalid value: "example.org": field is immutable`,
		}},
		{"plural", false, func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.Plural = "gadgets"
			c.Name = "gadgets.example.com"
		}, []string{
			`metadata.name: Invalid value: "gadgets.example.com": field is immutable`,
			`spec.names.plural: Invalid value: "gadgets": field is immutable`,
		}},
		{"remove a stored version", true, func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[1].Storage = true
			c.Spec.Versions = c.Spec.Versions[1:]
		}, []string{
			`status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions`,
		}},
		{"move storage to v2 and drop v1", true, func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions = c.Spec.Versions[1:]
			c.Spec.Versions[0].Storage = true
		}, []string{
			`status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions`,
		}},
		{"move storage to v2", true, func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = false, true
		}, nil},
		{"remove an unstored version", true, func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions = c.Spec.Versions[:1] }, nil},
		{"new invalid rule", true, onSpecSchema(func(s *apiextensionsv1.JSONSchemaProps) {
			s.XValidations = append(s.XValidations, apiextensionsv1.ValidationRule{Rule: "self.weight > 0"})
		}), []string{
			"spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Invalid value: {\"Rule\":\"self.weight \\u003e 0\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: compilation failed: ERROR: <input>:1:5: undefined field 'weight'\n | self.weight > 0\n | ....^",
		}},
		{"schema description", true, onSpecSchema(func(s *apiextensionsv1.JSONSchemaProps) { s.Description = "changed" }), nil},
		{"preserveUnknownFields", true, func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.PreserveUnknownFields = true }, []string{
			`spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema`,
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		}},
		{"uid", true, func(c *apiextensionsv1.CustomResourceDefinition) { c.UID = "uid-2" }, []string{
			`metadata.uid: Invalid value: "uid-2": field is immutable`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := stored(t, tc.established)
			crd := old.DeepCopy()
			tc.change(crd)
			SetDefaults(crd)
			PrepareForUpdate(crd, old)
			wantErrors(t, ValidateUpdate(crd, old), tc.want...)
		})
	}
}

// An update is refused for a missing api-approved annotation only when it
// changes the annotation's state: a CRD stored without one stays editable.
func TestValidateUpdateKeepsAPIApprovalState(t *testing.T) {
	protected := func(annotation string) *apiextensionsv1.CustomResourceDefinition {
		crd := stored(t, true)
		crd.Spec.Group, crd.Name = "example.k8s.io", "widgets.example.k8s.io"
		if annotation != "" {
			crd.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: annotation}
		}
		return crd
	}
	for _, tc := range []struct {
		name     string
		old, new string
		want     []string
	}{
		{"still missing", "", "", nil},
		{"still unapproved", "unapproved, testing", "unapproved, experimental", nil},
		{"approval removed", "unapproved, testing", "", []string{
			`metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{"approval made invalid", "", "maybe", []string{
			`metadata.annotations[api-approved.kubernetes.io]: Invalid value: "maybe": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, crd := protected(tc.old), protected(tc.new)
			crd.Labels = map[string]string{"edited": "yes"}
			PrepareForUpdate(crd, old)
			wantErrors(t, ValidateUpdate(crd, old), tc.want...)
		})
	}
}

func TestPrepareKeepsStoredVersions(t *testing.T) {
	old := stored(t, true)
	if got := old.Status.StoredVersions; len(got) != 1 || got[0] != "v1" {
		t.Fatalf("after create storedVersions = %v, want [v1]", got)
	}
	crd := old.DeepCopy()
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"forged"}}
	crd.Spec.Versions[0].Storage, crd.Spec.Versions[1].Storage = false, true
	PrepareForUpdate(crd, old)
	if got := crd.Status.StoredVersions; len(got) != 2 || got[0] != "v1" || got[1] != "v2" {
		t.Errorf("after moving storage to v2 storedVersions = %v, want [v1 v2]", got)
	}
	if len(crd.Status.Conditions) != 1 {
		t.Errorf("conditions not kept from the stored object: %v", crd.Status.Conditions)
	}
}

func TestSetDefaults(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Names:    apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", Plural: "widgets"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}},
	}}
	SetDefaults(crd)
	n := crd.Spec.Names
	if n.Singular != "widget" || n.ListKind != "WidgetList" {
		t.Errorf("names = %+v, want singular widget and listKind WidgetList", n)
	}
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("conversion = %+v, want strategy None", crd.Spec.Conversion)
	}
	if got := crd.Status.StoredVersions; len(got) != 1 || got[0] != "v1" {
		t.Errorf("storedVersions = %v, want [v1]", got)
	}
}
