package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

var (
	sharedOnce    sync.Once
	sharedHandler http.Handler
	sharedErr     error
)

// newHandler builds the handler once for all tests: it is read-only.
func newHandler(t *testing.T) http.Handler {
	t.Helper()
	sharedOnce.Do(func() {
		resources, err := registry.Builtin(registry.Options{})
		if err != nil {
			sharedErr = err
			return
		}
		sharedHandler, sharedErr = NewHandler(resources)
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedHandler
}

func serve(h http.Handler, path, accept string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestDefinitionNames: the definitions are named as kube-apiserver names
// them, after the Go package with its domain reversed.
func TestDefinitionNames(t *testing.T) {
	sw := v2Swagger(t, newHandler(t))
	for _, want := range []string{"io.k8s.api.apps.v1.Deployment", "io.k8s.api.core.v1.PodSpec", "io.k8s.apimachinery.pkg.api.resource.Quantity",
		"io.k8s.apimachinery.pkg.util.intstr.IntOrString", "io.k8s.api.apps.v1.DeploymentSpec"} {
		if _, ok := sw.Definitions[want]; !ok {
			t.Errorf("v2 lacks definition %s", want)
		}
	}
}

// v3Doc fetches and decodes one group version's v3 document.
func v3Doc(t *testing.T, h http.Handler, gv string) *spec3.OpenAPI {
	t.Helper()
	var root struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(serve(h, "/openapi/v3", "").Body.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	url := root.Paths[gv].ServerRelativeURL
	if !strings.HasPrefix(url, "/openapi/v3/"+gv+"?hash=") {
		t.Fatalf("serverRelativeURL of %s = %q", gv, url)
	}
	rec := serve(h, url, "application/json")
	if rec.Code != 200 || rec.Header().Get("Cache-Control") != "public, immutable" || rec.Header().Get("ETag") == "" {
		t.Fatalf("GET %s: %d %v", url, rec.Code, rec.Header())
	}
	doc := &spec3.OpenAPI{}
	if err := json.Unmarshal(rec.Body.Bytes(), doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestV3DeploymentSchema(t *testing.T) {
	doc := v3Doc(t, newHandler(t), "apis/apps/v1")
	s := doc.Components.Schemas
	deploy := s["io.k8s.api.apps.v1.Deployment"]
	if deploy == nil {
		t.Fatal("no Deployment schema")
	}
	gvk, _ := json.Marshal(deploy.Extensions["x-kubernetes-group-version-kind"])
	if string(gvk) != `[{"group":"apps","kind":"Deployment","version":"v1"}]` {
		t.Errorf("gvk = %s", gvk)
	}
	for _, p := range []string{"apiVersion", "kind", "metadata", "spec", "status"} {
		if _, ok := deploy.Properties[p]; !ok {
			t.Errorf("Deployment lacks property %s", p)
		}
	}
	if meta := deploy.Properties["metadata"]; len(meta.AllOf) != 1 || meta.AllOf[0].Ref.String() != "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" || meta.Description == "" {
		t.Errorf("metadata = %+v", meta)
	}
	dspec := s["io.k8s.api.apps.v1.DeploymentSpec"]
	replicas := dspec.Properties["replicas"]
	if replicas.Type[0] != "integer" || replicas.Format != "int32" || replicas.Description != (appsv1.DeploymentSpec{}).SwaggerDoc()["replicas"] {
		t.Errorf("replicas = %+v", replicas)
	}
	if strings.Join(dspec.Required, ",") != "selector,template" {
		t.Errorf("DeploymentSpec required = %v", dspec.Required)
	}
	containers := s["io.k8s.api.core.v1.PodSpec"].Properties["containers"]
	if containers.Extensions["x-kubernetes-patch-strategy"] != "merge" || containers.Extensions["x-kubernetes-patch-merge-key"] != "name" ||
		containers.Items.Schema.Ref.String() != "#/components/schemas/io.k8s.api.core.v1.Container" {
		t.Errorf("containers = %+v", containers)
	}
	ios := s["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
	// kube-apiserver's v3 IntOrString (its OpenAPIV3OneOfTypes); the
	// reflection this replaced published an anyOf with an extension.
	if got := jsonOf(t, ios.OneOf); got != `[{"type":"integer"},{"type":"string"}]` || ios.Format != "int-or-string" || len(ios.Type) != 0 {
		t.Errorf("IntOrString = %s", got)
	}
	if tm := s["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]; tm.Type[0] != "string" || tm.Format != "date-time" {
		t.Errorf("Time = %+v", tm)
	}
	limits := s["io.k8s.api.core.v1.ResourceRequirements"].Properties["limits"]
	if limits.AdditionalProperties.Schema.Ref.String() != "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity" {
		t.Errorf("limits = %+v", limits)
	}
	if _, ok := s["io.k8s.api.autoscaling.v1.Scale"]; !ok {
		t.Error("no Scale schema in apps/v1")
	}
	if _, ok := s["io.k8s.api.core.v1.Node"]; ok {
		t.Error("apps/v1 document carries core Node, which it never refers to")
	}
}

// TestV3GeneratedMarkers: what the Go markers say and reflection could
// not see: enum values, list and map types, required fields.
func TestV3GeneratedMarkers(t *testing.T) {
	s := v3Doc(t, newHandler(t), "apis/apps/v1").Components.Schemas
	strategy := s["io.k8s.api.apps.v1.DeploymentStrategy"].Properties["type"]
	if got := jsonOf(t, strategy.Enum); got != `["Recreate","RollingUpdate"]` || !strings.Contains(strategy.Description, "Possible enum values:") {
		t.Errorf("strategy type = %s", jsonOf(t, strategy))
	}
	containers := s["io.k8s.api.core.v1.PodSpec"].Properties["containers"]
	if containers.Extensions["x-kubernetes-list-type"] != "map" || jsonOf(t, containers.Extensions["x-kubernetes-list-map-keys"]) != `["name"]` {
		t.Errorf("containers = %s", jsonOf(t, containers))
	}
	if got := s["io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"].Extensions["x-kubernetes-map-type"]; got != "atomic" {
		t.Errorf("LabelSelector map type = %v", got)
	}
	if got := strings.Join(s["io.k8s.api.core.v1.Container"].Required, ","); got != "name" {
		t.Errorf("Container required = %s", got)
	}
}

// TestV3FieldValidationOnPatch checks what kubectl's query-param verifier
// looks for: a PATCH whose gvk extension names the kind and that takes the
// fieldValidation query parameter.
func TestV3FieldValidationOnPatch(t *testing.T) {
	h := newHandler(t)
	for gv, kinds := range map[string][]string{"apis/apps/v1": {"Deployment", "ReplicaSet", "Scale"}, "api/v1": {"Pod", "Namespace", "Node", "Event"}} {
		doc := v3Doc(t, h, gv)
		found := map[string]bool{}
		for path, p := range doc.Paths.Paths {
			for _, op := range []*spec3.Operation{p.Post, p.Put, p.Patch} {
				if op == nil {
					continue
				}
				gvk, _ := op.Extensions["x-kubernetes-group-version-kind"].(map[string]interface{})
				has := false
				for _, param := range op.Parameters {
					if param.Name == "fieldValidation" && param.In == "query" {
						has = true
					}
				}
				if !has {
					t.Errorf("%s %s lacks fieldValidation", path, op.OperationId)
				}
				if op == p.Patch && gvk != nil {
					found[gvk["kind"].(string)] = true
				}
			}
		}
		for _, k := range kinds {
			if !found[k] {
				t.Errorf("%s: no PATCH for kind %s", gv, k)
			}
		}
	}
	doc := v3Doc(t, h, "apis/apps/v1")
	scale := doc.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]
	if scale == nil || scale.Patch.OperationId != "patchAppsV1NamespacedDeploymentScale" || scale.Get.OperationId != "readAppsV1NamespacedDeploymentScale" {
		t.Fatalf("scale path = %+v", scale)
	}
	if got := scale.Get.Responses.StatusCodeResponses[200].Content["application/json"].Schema.Ref.String(); got != "#/components/schemas/io.k8s.api.autoscaling.v1.Scale" {
		t.Errorf("scale GET returns %s", got)
	}
	if _, ok := scale.Patch.RequestBody.Content["application/strategic-merge-patch+json"]; !ok {
		t.Error("scale PATCH does not take strategic merge patches")
	}
	if doc.Paths.Paths["/apis/apps/v1/deployments"].Get.OperationId != "listAppsV1DeploymentForAllNamespaces" {
		t.Error("no all-namespaces list")
	}
	core := v3Doc(t, h, "api/v1")
	if core.Paths.Paths["/api/v1/namespaces/{name}"].Get.OperationId != "readCoreV1Namespace" {
		t.Error("namespace read operation missing or misnamed")
	}
}

// TestV3StrategicMergeMetadata merges containers by name using only the
// served schema, as kubectl apply does.
func TestV3StrategicMergeMetadata(t *testing.T) {
	doc := v3Doc(t, newHandler(t), "apis/apps/v1")
	meta := strategicpatch.PatchMetaFromOpenAPIV3{SchemaList: doc.Components.Schemas, Schema: doc.Components.Schemas["io.k8s.api.apps.v1.Deployment"]}
	original := `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}}}}`
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"z"}]}}}}`
	got, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta([]byte(original), []byte(patch), meta)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"spec":{"template":{"spec":{"containers":[{"image":"x","name":"a"},{"image":"z","name":"b"}]}}}}`; string(got) != want {
		t.Errorf("merged = %s\nwant     %s", got, want)
	}
}

func TestV3Caching(t *testing.T) {
	h := newHandler(t)
	rec := serve(h, "/openapi/v3/apis/apps/v1", "application/json")
	tag := rec.Header().Get("ETag")
	if rec.Code != 200 || tag == "" || rec.Header().Get("Cache-Control") == "public, immutable" {
		t.Fatalf("without hash: %d %v", rec.Code, rec.Header())
	}
	hash := strings.Trim(tag, `"`)
	if rec := serve(h, "/openapi/v3/apis/apps/v1?hash=STALE", "application/json"); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/openapi/v3/apis/apps/v1?hash="+hash {
		t.Errorf("stale hash: %d %v", rec.Code, rec.Header())
	}
	if rec := serve(h, "/openapi/v3/apis/apps/v1?hash="+hash, "application/json", "If-None-Match", tag); rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", rec.Code)
	}
	if rec := serve(h, "/openapi/v3/apis/nosuch.example.com/v1", "application/json"); rec.Code != http.StatusNotFound {
		t.Errorf("unknown group version: %d", rec.Code)
	}
	// kube-apiserver serves v3 in protobuf too.
	if rec := serve(h, "/openapi/v3/apis/apps/v1", v3Protobuf); rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != v3ProtobufDotted {
		t.Errorf("protobuf: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if rec := serve(h, "/openapi/v3/apis/apps/v1", "text/html"); rec.Code != http.StatusNotAcceptable || !strings.Contains(rec.Body.String(), `"kind":"Status"`) {
		t.Errorf("text/html: %d %s", rec.Code, rec.Body)
	}
}

func TestV2JSONAndProtobuf(t *testing.T) {
	h := newHandler(t)
	rec := serve(h, "/openapi/v2", "application/json")
	var sw spec.Swagger
	if err := json.Unmarshal(rec.Body.Bytes(), &sw); err != nil {
		t.Fatal(err)
	}
	if sw.Swagger != "2.0" || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("swagger %q, content type %q", sw.Swagger, rec.Header().Get("Content-Type"))
	}
	if d, tmpl := sw.Definitions["io.k8s.api.apps.v1.DeploymentSpec"], sw.Definitions["io.k8s.api.apps.v1.DeploymentSpec"].Properties["template"]; tmpl.Ref.String() != "#/definitions/io.k8s.api.core.v1.PodTemplateSpec" {
		t.Errorf("v2 template = %+v", d.Properties["template"])
	}
	if ios := sw.Definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]; ios.Type[0] != "string" || ios.Format != "int-or-string" {
		t.Errorf("v2 IntOrString = %+v", ios)
	}
	patch := sw.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].Patch
	if patch == nil || !strings.Contains(strings.Join(patch.Consumes, ","), "application/strategic-merge-patch+json") {
		t.Fatalf("v2 patch = %+v", patch)
	}
	// Shared parameters are references into the document's "parameters",
	// as in kube-apiserver's v2, but for fieldValidation and dryRun, which
	// kubectl looks for in the operation.
	inline := map[string]bool{}
	for _, p := range patch.Parameters {
		if ref := p.Ref.String(); ref != "" {
			if _, ok := sw.Parameters[strings.TrimPrefix(ref, "#/parameters/")]; !ok {
				t.Errorf("v2 patch parameter %s is not in parameters", ref)
			}
			continue
		}
		inline[p.Name] = true
	}
	if !inline["fieldValidation"] || !inline["dryRun"] || inline["fieldManager"] || len(sw.Parameters) == 0 {
		t.Errorf("v2 patch inline parameters = %v, shared %d", inline, len(sw.Parameters))
	}

	rec = serve(h, "/openapi/v2", v2Protobuf+",application/json")
	if rec.Header().Get("Content-Type") != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" {
		t.Fatalf("content type %q", rec.Header().Get("Content-Type"))
	}
	var doc openapi_v2.Document
	if err := proto.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range doc.GetDefinitions().GetAdditionalProperties() {
		if p.GetName() == "io.k8s.api.apps.v1.Deployment" {
			found = true
		}
	}
	if !found || doc.GetSwagger() != "2.0" {
		t.Error("protobuf v2 lacks the Deployment definition")
	}
	if rec := serve(h, "/openapi/v2", "text/html"); rec.Code != http.StatusNotAcceptable {
		t.Errorf("text/html: %d", rec.Code)
	}
}
