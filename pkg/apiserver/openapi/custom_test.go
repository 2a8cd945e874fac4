package openapi

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

// widgetSchema is a CRD schema as ToKubeOpenAPI gives it: the reference's
// Widget plus one field of each kind the documents treat specially.
const widgetSchema = `{
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "required": ["size", "note"],
      "x-kubernetes-validations": [{"rule": "self.size <= 5 || self.color == 'red'", "message": "big widgets must be red"}],
      "properties": {
        "size": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
        "color": {"type": "string", "enum": ["red", "blue"]},
        "note": {"type": "string", "nullable": true},
        "port": {"x-kubernetes-int-or-string": true},
        "shape": {"type": "string", "oneOf": [{"pattern": "^a"}, {"pattern": "^b"}]},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {"type": "string"}}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "template": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object"}}},
        "raw": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}
      }
    },
    "status": {"type": "object", "properties": {"size": {"type": "integer"}}}
  }
}`

func widgetResource(t *testing.T, schemaJSON string) *registry.Resource {
	t.Helper()
	s := &spec.Schema{}
	if err := json.Unmarshal([]byte(schemaJSON), s); err != nil {
		t.Fatal(err)
	}
	return &registry.Resource{
		Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", ListKind: "WidgetList", Singular: "widget",
		Namespaced: true,
		New:        func() runtime.Object { return &unstructured.Unstructured{} },
		NewList:    func() runtime.Object { return &unstructured.UnstructuredList{} },
		Subresources: map[string]*registry.Subresource{
			"status": {},
			"scale": {
				Kind: autoscalingv1.SchemeGroupVersion.WithKind("Scale"),
				View: &registry.View{New: func() runtime.Object { return &autoscalingv1.Scale{} }},
			},
		},
		Schema: &registry.Schema{OpenAPI: s},
	}
}

var (
	customOnce     sync.Once
	customHandler  http.Handler
	customResource *registry.Resource
	customErr      error
)

// newCustomHandler serves the built-in kinds and the Widget custom
// resource; built once, as it is read-only.
func newCustomHandler(t *testing.T) http.Handler {
	t.Helper()
	customOnce.Do(func() {
		resources, err := registry.Builtin(registry.Options{})
		if err != nil {
			customErr = err
			return
		}
		customResource = widgetResource(t, widgetSchema)
		customHandler, customErr = NewHandler(append(resources, customResource))
	})
	if customErr != nil {
		t.Fatal(customErr)
	}
	return customHandler
}

func jsonOf(t *testing.T, v interface{}) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func keys[V any](m map[string]V) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestCustomDefinitionName(t *testing.T) {
	for gvk, want := range map[[3]string]string{
		{"example.com", "v1", "Widget"}:              "com.example.v1.Widget",
		{"stable.example.com", "v1beta1", "CronTab"}: "com.example.stable.v1beta1.CronTab",
		{"bar.k8s.io", "v2", "FooList"}:              "io.k8s.bar.v2.FooList",
	} {
		if got := customDefinitionName(schema.GroupVersionKind{Group: gvk[0], Version: gvk[1], Kind: gvk[2]}); got != want {
			t.Errorf("%v: %s, want %s", gvk, got, want)
		}
	}
}

func TestCustomResourceV3Schemas(t *testing.T) {
	doc := v3Doc(t, newCustomHandler(t), "apis/example.com/v1")
	s := doc.Components.Schemas
	widget, list := s["com.example.v1.Widget"], s["com.example.v1.WidgetList"]
	if widget == nil || list == nil {
		t.Fatalf("schemas: %s", keys(s))
	}
	if got := jsonOf(t, widget.Extensions["x-kubernetes-group-version-kind"]); got != `[{"group":"example.com","kind":"Widget","version":"v1"}]` {
		t.Errorf("Widget gvk = %s", got)
	}
	if got := jsonOf(t, list.Extensions["x-kubernetes-group-version-kind"]); got != `[{"group":"example.com","kind":"WidgetList","version":"v1"}]` {
		t.Errorf("WidgetList gvk = %s", got)
	}
	if got := keys(widget.Properties); got != "apiVersion,kind,metadata,spec,status" {
		t.Errorf("Widget properties = %s", got)
	}
	typeMeta := metav1.TypeMeta{}.SwaggerDoc()
	if av := widget.Properties["apiVersion"]; jsonOf(t, av.Type) != `"string"` || av.Description != typeMeta["apiVersion"] {
		t.Errorf("apiVersion = %s", jsonOf(t, av))
	}
	if k := widget.Properties["kind"]; jsonOf(t, k.Type) != `"string"` || k.Description != typeMeta["kind"] {
		t.Errorf("kind = %s", jsonOf(t, k))
	}
	if got := jsonOf(t, widget.Properties["metadata"]); got != `{"description":"`+(metav1.PartialObjectMetadata{}).SwaggerDoc()["metadata"]+`","allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}` {
		t.Errorf("metadata = %s", got)
	}
	wspec := widget.Properties["spec"].Properties
	if got := jsonOf(t, wspec["port"]); got != `{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}` {
		t.Errorf("v3 port = %s", got)
	}
	if size := wspec["size"]; jsonOf(t, size.Default) != "1" || !wspec["note"].Nullable || len(wspec["shape"].OneOf) != 2 {
		t.Errorf("v3 lost what it can say: size %s note %s shape %s", jsonOf(t, size), jsonOf(t, wspec["note"]), jsonOf(t, wspec["shape"]))
	}
	tmpl := wspec["template"]
	if got := keys(tmpl.Properties); got != "apiVersion,kind,metadata,spec" || strings.Join(tmpl.Required, ",") != "kind,apiVersion" ||
		tmpl.Properties["kind"].Description != embeddedKindDoc {
		t.Errorf("embedded template = %s", jsonOf(t, tmpl))
	}
	if got := keys(wspec["raw"].Properties); got != "apiVersion,kind,metadata" {
		t.Errorf("v3 embedded raw properties = %s", got)
	}

	if strings.Join(list.Required, ",") != "items" || keys(list.Properties) != "apiVersion,items,kind,metadata" {
		t.Errorf("WidgetList = %s", jsonOf(t, list))
	}
	if items := list.Properties["items"]; jsonOf(t, items.Type) != `"array"` || items.Items.Schema.Ref.String() != "#/components/schemas/com.example.v1.Widget" {
		t.Errorf("WidgetList items = %s", jsonOf(t, items))
	}
	if meta := list.Properties["metadata"]; len(meta.AllOf) != 1 || meta.AllOf[0].Ref.String() != "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta" {
		t.Errorf("WidgetList metadata = %s", jsonOf(t, meta))
	}

	for _, name := range []string{"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
		"io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry", "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
		"io.k8s.apimachinery.pkg.apis.meta.v1.Patch", "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "io.k8s.api.autoscaling.v1.Scale"} {
		if s[name] == nil {
			t.Errorf("example.com/v1 lacks %s", name)
		}
	}
	for _, name := range []string{"io.k8s.api.apps.v1.Deployment", "io.k8s.api.core.v1.Pod", "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"} {
		if s[name] != nil {
			t.Errorf("example.com/v1 carries %s, which it never refers to", name)
		}
	}
	if _, ok := v3Doc(t, newCustomHandler(t), "apis/apps/v1").Components.Schemas["com.example.v1.Widget"]; ok {
		t.Error("apps/v1 carries the Widget")
	}
	if got := jsonOf(t, customResource.Schema.OpenAPI); strings.Contains(got, "apiVersion") || strings.Contains(got, "group-version-kind") {
		t.Errorf("the registry's schema was changed: %s", got)
	}
}

func TestCustomResourceV3Operations(t *testing.T) {
	doc := v3Doc(t, newCustomHandler(t), "apis/example.com/v1")
	const base = "/apis/example.com/v1/namespaces/{namespace}/widgets"
	if got := keys(doc.Paths.Paths); got != "/apis/example.com/v1/namespaces/{namespace}/widgets,"+base+"/{name},"+base+"/{name}/scale,"+base+"/{name}/status,/apis/example.com/v1/widgets" {
		t.Fatalf("paths = %s", got)
	}
	item := doc.Paths.Paths[base+"/{name}"]
	patch := item.Patch
	if patch.OperationId != "patchExampleComV1NamespacedWidget" || strings.Join(patch.Tags, ",") != "exampleCom_v1" || patch.Description != "partially update the specified Widget" {
		t.Errorf("patch = %s %v %q", patch.OperationId, patch.Tags, patch.Description)
	}
	if got := keys(patch.RequestBody.Content); got != "application/apply-patch+yaml,application/json-patch+json,application/merge-patch+json" {
		t.Errorf("patch takes %s", got)
	}
	if got := jsonOf(t, patch.Responses.StatusCodeResponses); got != jsonOf(t, map[int]*spec3.Response{
		200: {ResponseProps: spec3.ResponseProps{Description: "OK", Content: content([]string{"application/json", "application/yaml"}, "com.example.v1.Widget")}},
		401: {ResponseProps: spec3.ResponseProps{Description: "Unauthorized"}},
	}) {
		t.Errorf("patch answers %s", got)
	}
	if got := keys(item.Put.RequestBody.Content); got != "application/json,application/yaml" {
		t.Errorf("put takes %s", got)
	}
	if ref := item.Put.RequestBody.Content["application/json"].Schema.Ref.String(); ref != "#/components/schemas/com.example.v1.Widget" {
		t.Errorf("put body = %s", ref)
	}
	list := doc.Paths.Paths[base].Get
	if got := keys(list.Responses.StatusCodeResponses[200].Content); got != "application/json,application/yaml" ||
		list.Responses.StatusCodeResponses[200].Content["application/json"].Schema.Ref.String() != "#/components/schemas/com.example.v1.WidgetList" {
		t.Errorf("list answers %s", jsonOf(t, list.Responses.StatusCodeResponses[200]))
	}
	if post := doc.Paths.Paths[base].Post; post.Description != "create a Widget" || post.OperationId != "createExampleComV1NamespacedWidget" {
		t.Errorf("post = %s %q", post.OperationId, post.Description)
	}
	if list.Description != "list objects of kind Widget" {
		t.Errorf("list description = %q", list.Description)
	}
	if all := doc.Paths.Paths["/apis/example.com/v1/widgets"].Get; all.OperationId != "listExampleComV1WidgetForAllNamespaces" {
		t.Errorf("all-namespaces list = %s", all.OperationId)
	}

	status := doc.Paths.Paths[base+"/{name}/status"]
	if status.Get.OperationId != "readExampleComV1NamespacedWidgetStatus" || status.Patch.OperationId != "patchExampleComV1NamespacedWidgetStatus" ||
		status.Get.Responses.StatusCodeResponses[200].Content["application/json"].Schema.Ref.String() != "#/components/schemas/com.example.v1.Widget" {
		t.Errorf("status = %s", jsonOf(t, status))
	}
	if got := keys(status.Patch.RequestBody.Content); got != "application/apply-patch+yaml,application/json-patch+json,application/merge-patch+json" {
		t.Errorf("status patch takes %s", got)
	}
	scale := doc.Paths.Paths[base+"/{name}/scale"]
	if scale.Get.Responses.StatusCodeResponses[200].Content["application/json"].Schema.Ref.String() != "#/components/schemas/io.k8s.api.autoscaling.v1.Scale" {
		t.Errorf("scale answers %s", jsonOf(t, scale.Get.Responses.StatusCodeResponses[200]))
	}
	// kube-apiserver names the custom resource's kind on its scale
	// operations, where a built-in's name Scale.
	if got := jsonOf(t, scale.Patch.Extensions["x-kubernetes-group-version-kind"]); got != `{"group":"example.com","kind":"Widget","version":"v1"}` {
		t.Errorf("scale patch gvk = %s", got)
	}
	if _, ok := scale.Patch.RequestBody.Content["application/strategic-merge-patch+json"]; ok {
		t.Error("custom resource's scale takes strategic merge patches")
	}
	// Built-ins keep theirs.
	apps := v3Doc(t, newCustomHandler(t), "apis/apps/v1")
	if _, ok := apps.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].Patch.RequestBody.Content["application/strategic-merge-patch+json"]; !ok {
		t.Error("Deployment PATCH lost strategic merge patch")
	}
}

func v2Swagger(t *testing.T, h http.Handler) *spec.Swagger {
	t.Helper()
	var sw spec.Swagger
	if err := json.Unmarshal(serve(h, "/openapi/v2", "application/json").Body.Bytes(), &sw); err != nil {
		t.Fatal(err)
	}
	return &sw
}

func TestCustomResourceV2(t *testing.T) {
	h := newCustomHandler(t)
	sw := v2Swagger(t, h)
	widget, list := sw.Definitions["com.example.v1.Widget"], sw.Definitions["com.example.v1.WidgetList"]
	if got := jsonOf(t, widget.Extensions["x-kubernetes-group-version-kind"]); got != `[{"group":"example.com","kind":"Widget","version":"v1"}]` {
		t.Errorf("Widget gvk = %s", got)
	}
	if meta := widget.Properties["metadata"]; meta.Ref.String() != "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" || meta.Description == "" {
		t.Errorf("v2 metadata = %s", jsonOf(t, meta))
	}
	if ref := list.Properties["items"].Items.Schema.Ref.String(); ref != "#/definitions/com.example.v1.Widget" {
		t.Errorf("v2 list items = %s", ref)
	}
	wspec := widget.Properties["spec"]
	if strings.Join(wspec.Required, ",") != "size" {
		t.Errorf("v2 spec required = %v, want the nullable note dropped", wspec.Required)
	}
	p := wspec.Properties
	for name, want := range map[string]string{
		"note":     `{}`,
		"port":     `{"x-kubernetes-int-or-string":true}`,
		"shape":    `{"type":"string"}`,
		"size":     `{"type":"integer","maximum":10,"minimum":1}`,
		"color":    `{"type":"string","enum":["red","blue"]}`,
		"extra":    `{"x-kubernetes-preserve-unknown-fields":true}`,
		"tags":     `{"type":"array","items":{"type":"string"}}`,
		"raw":      `{"x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}`,
		"template": "",
	} {
		got := jsonOf(t, p[name])
		if name == "template" {
			if keys(p[name].Properties) != "apiVersion,kind,metadata,spec" || jsonOf(t, p[name].Properties["metadata"].Ref) == `""` {
				t.Errorf("v2 template = %s", got)
			}
			continue
		}
		if got != want {
			t.Errorf("v2 %s = %s, want %s", name, got, want)
		}
	}
	if _, ok := wspec.Extensions["x-kubernetes-validations"]; !ok {
		t.Error("v2 lost x-kubernetes-validations")
	}

	patch := sw.Paths.Paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"].Patch
	if got := strings.Join(patch.Consumes, ","); got != "application/json-patch+json,application/merge-patch+json,application/apply-patch+yaml" {
		t.Errorf("v2 patch consumes %s", got)
	}
	if got := strings.Join(patch.Produces, ","); got != "application/json,application/yaml" {
		t.Errorf("v2 patch produces %s", got)
	}
	if sw.Paths.Paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status"].Put == nil {
		t.Error("v2 lacks PUT status")
	}

	// kubectl reads v2 as protobuf: the custom resource must survive it.
	rec := serve(h, "/openapi/v2", v2Protobuf)
	var doc openapi_v2.Document
	if err := proto.Unmarshal(rec.Body.Bytes(), &doc); rec.Code != http.StatusOK || err != nil {
		t.Fatalf("protobuf v2: %d %v", rec.Code, err)
	}
	found := false
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		found = found || d.GetName() == "com.example.v1.Widget"
	}
	if !found {
		t.Error("protobuf v2 lacks the Widget")
	}
}

// TestCustomResourcePreservingRoot: a custom resource that keeps unknown
// fields at its root is a bare object in v2 (kube-apiserver adds not even
// metadata, which would make kubectl reject every other field) and fully
// described in v3.
func TestCustomResourcePreservingRoot(t *testing.T) {
	r := widgetResource(t, `{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"spec":{"type":"object"}}}`)
	h, err := NewHandler([]*registry.Resource{r})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, v2Swagger(t, h).Definitions["com.example.v1.Widget"]); got != `{"type":"object","x-kubernetes-group-version-kind":[{"group":"example.com","kind":"Widget","version":"v1"}]}` {
		t.Errorf("v2 Widget = %s", got)
	}
	if got := keys(v3Doc(t, h, "apis/example.com/v1").Components.Schemas["com.example.v1.Widget"].Properties); got != "apiVersion,kind,metadata,spec" {
		t.Errorf("v3 Widget properties = %s", got)
	}
}

// TestOperationNamesAsKube: tags and operation ids drop ".k8s.io" and
// join the group's words; a kind starting with a vowel takes "an".
func TestOperationNamesAsKube(t *testing.T) {
	doc := v3Doc(t, newHandler(t), "apis/rbac.authorization.k8s.io/v1")
	op := doc.Paths.Paths["/apis/rbac.authorization.k8s.io/v1/clusterroles"].Get
	if op.OperationId != "listRbacAuthorizationV1ClusterRole" || strings.Join(op.Tags, ",") != "rbacAuthorization_v1" {
		t.Errorf("clusterroles list = %s %v", op.OperationId, op.Tags)
	}
	net := v3Doc(t, newHandler(t), "apis/networking.k8s.io/v1")
	if post := net.Paths.Paths["/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses"].Post; post.Description != "create an Ingress" {
		t.Errorf("ingress create = %q", post.Description)
	}
	apps := v3Doc(t, newHandler(t), "apis/apps/v1")
	if tags := apps.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"].Get.Tags; strings.Join(tags, ",") != "apps_v1" {
		t.Errorf("deployment scale tags = %v", tags)
	}
}
