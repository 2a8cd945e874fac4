package crd

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// createCase changes the reference CRD and expects kube-apiserver's errors.
type createCase struct {
	name   string
	change func(crd *apiextensionsv1.CustomResourceDefinition)
	want   []string
}

func runCreateCases(t *testing.T, cases []createCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			crd := widgets(t)
			tc.change(crd)
			SetDefaults(crd)
			PrepareForCreate(crd)
			wantErrors(t, Validate(crd), tc.want...)
		})
	}
}

func TestValidateAcceptsReference(t *testing.T) {
	crd := widgets(t)
	PrepareForCreate(crd)
	wantErrors(t, Validate(crd))
}

func TestValidateMetadataAndGroup(t *testing.T) {
	runCreateCases(t, []createCase{
		{"name is not plural.group", func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "widget.example.com" }, []string{
			`metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group`,
		}},
		{"no name", func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "" }, []string{
			`metadata.name: Required value: name or generateName is required`,
		}},
		{"namespace set", func(c *apiextensionsv1.CustomResourceDefinition) { c.Namespace = "default" }, []string{
			`metadata.namespace: Forbidden: not allowed on this type`,
		}},
		{"no group", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Group = ""; c.Name = "widgets." }, []string{
			`metadata.name: Invalid value: "widgets.": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.group: Required value`,
		}},
		{"group without a dot", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "example"
			c.Name = "widgets.example"
		}, []string{
			`spec.group: Invalid value: "example": should be a domain with at least one dot`,
		}},
		{"group not a subdomain", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "Example.com"
			c.Name = "widgets.Example.com"
		}, []string{
			`metadata.name: Invalid value: "widgets.Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.group: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},
		{"protected group without approval", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "example.k8s.io"
			c.Name = "widgets.example.k8s.io"
		}, []string{
			`metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{"protected group with a bad approval", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "example.k8s.io"
			c.Name = "widgets.example.k8s.io"
			c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: "yes"}
		}, []string{
			`metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{"protected group approved", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "example.k8s.io"
			c.Name = "widgets.example.k8s.io"
			c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: "https://github.com/kubernetes/enhancements/pull/1111"}
		}, nil},
		{"no scope", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = "" }, []string{
			`spec.scope: Required value`,
		}},
		{"unknown scope", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = "Global" }, []string{
			`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`,
		}},
		{"preserveUnknownFields with conversion Webhook and defaults", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.PreserveUnknownFields = true
			c.Spec.Conversion.Strategy = apiextensionsv1.WebhookConverter
		}, []string{
			// kube-apiserver says the same, except that it asks for the webhook's
			// settings where miniapi refuses the strategy
			`spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema`,
			`spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true`,
			`spec.conversion.strategy: Unsupported value: "Webhook": supported values: "None"`,
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		}},
		{"preserveUnknownFields", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.PreserveUnknownFields = true }, []string{
			`spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema`,
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		}},
	})
}

func TestValidateNames(t *testing.T) {
	runCreateCases(t, []createCase{
		{"upper-case plural", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.Plural = "Widgets"
			c.Name = "Widgets.example.com"
		}, []string{
			`metadata.name: Invalid value: "Widgets.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.names.plural: Invalid value: "Widgets": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"no plural", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.Plural = ""; c.Name = ".example.com" }, []string{
			`metadata.name: Invalid value: ".example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.names.plural: Required value`,
		}},
		{"bad singular", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.Singular = "a_widget" }, []string{
			`spec.names.singular: Invalid value: "a_widget": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"no kind", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.Kind, c.Spec.Names.Singular, c.Spec.Names.ListKind = "", "", ""
		}, []string{
			`spec.names.singular: Required value`,
			`spec.names.kind: Required value`,
			`spec.names.listKind: Required value`,
		}},
		{"bad kind and listKind", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.Kind, c.Spec.Names.ListKind = "Wid_get", "Wid_getList"
		}, []string{
			`spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.names.listKind: Invalid value: "Wid_getList": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"listKind equals kind", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.ListKind = "Widget" }, []string{
			`spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same`,
		}},
		{"bad short name and category", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.ShortNames = []string{"wg", "W G"}
			c.Spec.Names.Categories = []string{"all", "my_things"}
		}, []string{
			`spec.names.shortNames[1]: Invalid value: "W G": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.names.categories[1]: Invalid value: "my_things": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
	})
}

func TestValidateVersions(t *testing.T) {
	second := func(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionVersion {
		v := *c.Spec.Versions[0].DeepCopy()
		v.Name, v.Storage = "v2", false
		c.Spec.Versions = append(c.Spec.Versions, v)
		return &c.Spec.Versions[1]
	}
	runCreateCases(t, []createCase{
		{"no versions", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions = nil }, []string{
			`spec.versions: Invalid value: null: must have exactly one version marked as storage version`,
			`status.storedVersions: Invalid value: null: must have at least one stored version`,
		}},
		{"two storage versions", func(c *apiextensionsv1.CustomResourceDefinition) { second(c).Storage = true }, []string{
			`spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version`,
			`status.storedVersions: Invalid value: ["v1"]: must have the storage version v2`,
		}},
		{"no storage version", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Storage = false }, []string{
			`spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version`,
			`status.storedVersions: Invalid value: null: must have at least one stored version`,
		}},
		{"duplicate names", func(c *apiextensionsv1.CustomResourceDefinition) { second(c).Name = "v1" }, []string{
			`spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must contain unique version names`,
		}},
		{"bad first name", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Name = "V1" }, []string{
			`spec.versions[0].name: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.version: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"bad second name", func(c *apiextensionsv1.CustomResourceDefinition) { second(c).Name = "1beta" }, []string{
			`spec.versions[1].name: Invalid value: "1beta": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"none served is allowed", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Served = false }, nil},
		{"no schema", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Schema = nil }, []string{
			`spec.versions[0].schema.openAPIV3Schema: Required value`,
		}},
		{"second version without schema", func(c *apiextensionsv1.CustomResourceDefinition) { second(c).Schema = nil }, []string{
			`spec.versions[1].schema.openAPIV3Schema: Required value`,
		}},
		{"error in a schema all versions share", func(c *apiextensionsv1.CustomResourceDefinition) {
			second(c)
			for i := range c.Spec.Versions {
				c.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["status"] = apiextensionsv1.JSONSchemaProps{}
			}
		}, []string{
			`spec.validation.openAPIV3Schema.properties[status].type: Required value: must not be empty for specified object fields`,
		}},
		{"error in one version's schema", func(c *apiextensionsv1.CustomResourceDefinition) {
			second(c).Schema.OpenAPIV3Schema.Properties["status"] = apiextensionsv1.JSONSchemaProps{}
		}, []string{
			`spec.versions[1].schema.openAPIV3Schema.properties[status].type: Required value: must not be empty for specified object fields`,
		}},
		{"deprecation warning on a current version", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].DeprecationWarning = ptr("old")
		}, []string{
			`spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions`,
		}},
		{"deprecation warning too long", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Deprecated = true
			c.Spec.Versions[0].DeprecationWarning = ptr(strings.Repeat("x", 257))
		}, []string{
			`spec.versions[0].deprecationWarning: Invalid value: "` + strings.Repeat("x", 257) + `": must be <= 256 characters long`,
		}},
		{"empty deprecation warning", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Deprecated = true
			c.Spec.Versions[0].DeprecationWarning = ptr("")
		}, []string{
			`spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string`,
		}},
		{"deprecated with a warning", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Deprecated = true
			c.Spec.Versions[0].DeprecationWarning = ptr("v1 is going away")
		}, nil},
		{"bad deprecation warning", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Deprecated = true
			c.Spec.Versions[0].DeprecationWarning = ptr("two\nlines")
		}, []string{
			`spec.versions[0].deprecationWarning: Invalid value: "two\nlines": must only contain printable UTF-8 characters; non-printable character found at index 3`,
		}},
	})
}

func TestValidateConversion(t *testing.T) {
	runCreateCases(t, []createCase{
		{"defaulted to None", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Conversion = nil }, nil},
		// kube-apiserver accepts this; miniapi cannot call the webhook
		{"webhook is refused", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr("https://convert.example.com/")},
				ConversionReviewVersions: []string{"v1"},
			}}
		}, []string{`spec.conversion.strategy: Unsupported value: "Webhook": supported values: "None"`}},
		{"unknown strategy", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Conversion.Strategy = "Magic" }, []string{
			`spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"`,
		}},
		{"webhook settings with None", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr("https://convert.example.com/")},
				ConversionReviewVersions: []string{"v1"},
			}
		}, []string{
			`spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook`,
			`spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook`,
		}},
	})
}

func TestValidateColumnsAndScale(t *testing.T) {
	col := func(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceColumnDefinition {
		return &c.Spec.Versions[0].AdditionalPrinterColumns[0]
	}
	scale := func(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceSubresourceScale {
		return c.Spec.Versions[0].Subresources.Scale
	}
	runCreateCases(t, []createCase{
		{"column type", func(c *apiextensionsv1.CustomResourceDefinition) { col(c).Type = "float" }, []string{
			`spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string`,
		}},
		{"column without type", func(c *apiextensionsv1.CustomResourceDefinition) { col(c).Type = "" }, []string{
			`spec.additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string`,
		}},
		{"column format", func(c *apiextensionsv1.CustomResourceDefinition) { col(c).Format = "uuid" }, []string{
			`spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password`,
		}},
		{"column without name", func(c *apiextensionsv1.CustomResourceDefinition) { col(c).Name = "" }, []string{
			`spec.additionalPrinterColumns[0].name: Required value`,
		}},
		{"column without path", func(c *apiextensionsv1.CustomResourceDefinition) { col(c).JSONPath = "" }, []string{
			`spec.additionalPrinterColumns[0].JSONPath: Required value`,
		}},
		{"column path not starting with a dot", func(c *apiextensionsv1.CustomResourceDefinition) { col(c).JSONPath = "spec.size" }, []string{
			`spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .`,
		}},
		{"all valid column types", func(c *apiextensionsv1.CustomResourceDefinition) {
			cols := []apiextensionsv1.CustomResourceColumnDefinition{}
			for _, typ := range []string{"integer", "number", "string", "boolean", "date"} {
				cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{Name: typ, Type: typ, JSONPath: ".spec.size"})
			}
			c.Spec.Versions[0].AdditionalPrinterColumns = cols
		}, nil},
		{"spec replicas not under spec", func(c *apiextensionsv1.CustomResourceDefinition) { scale(c).SpecReplicasPath = ".status.size" }, []string{
			`spec.subresources.scale.specReplicasPath: Invalid value: ".status.size": should be a json path under .spec`,
		}},
		{"status replicas not under status", func(c *apiextensionsv1.CustomResourceDefinition) { scale(c).StatusReplicasPath = ".spec.size" }, []string{
			`spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.size": should be a json path under .status`,
		}},
		{"scale paths missing", func(c *apiextensionsv1.CustomResourceDefinition) {
			*scale(c) = apiextensionsv1.CustomResourceSubresourceScale{}
		}, []string{
			`spec.subresources.scale.specReplicasPath: Required value`,
			`spec.subresources.scale.statusReplicasPath: Required value`,
		}},
		{"scale path without dot", func(c *apiextensionsv1.CustomResourceDefinition) { scale(c).SpecReplicasPath = "spec.size" }, []string{
			`spec.subresources.scale.specReplicasPath: Invalid value: "spec.size": must be a simple json path starting with .`,
		}},
		{"label selector path", func(c *apiextensionsv1.CustomResourceDefinition) {
			scale(c).LabelSelectorPath = ptr(".metadata.labels")
		}, []string{
			`spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status`,
		}},
	})
}
