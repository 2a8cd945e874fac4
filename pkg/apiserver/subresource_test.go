package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The promises each subresource keeps, tested through the HTTP handlers.

const (
	mergePatch = "application/merge-patch+json"
	jsonBody   = "application/json"
)

// createDeployment stores a deployment "web" with 2 replicas and returns
// it as stored.
func createDeployment(t *testing.T, ts *testServer) *appsv1.Deployment {
	t.Helper()
	code, _, body := ts.do(t, http.MethodPost, "/apis/apps/v1/namespaces/default/deployments", jsonBody, `{
		"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	return decodeDeployment(t, body)
}

func decodeDeployment(t *testing.T, body string) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := json.Unmarshal([]byte(body), d); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return d
}

// wantStatus fails unless the answer has code and its Status message
// contains msg.
func wantStatus(t *testing.T, what string, code int, body string, wantCode int, msg string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("%s: code %d, want %d: %s", what, code, wantCode, body)
	}
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.Kind != "Status" {
		t.Fatalf("%s: not a Status: %s", what, body)
	}
	if !strings.Contains(st.Message, msg) {
		t.Errorf("%s: message %q, want it to contain %q", what, st.Message, msg)
	}
}

func TestStatusWriteIgnoresSpec(t *testing.T) {
	ts := startTestServer(t)
	d := createDeployment(t, ts)
	d.Spec.Replicas = int32Ptr(9)
	d.Status.Replicas = 2
	d.Status.ObservedGeneration = 1
	b, _ := json.Marshal(d)
	code, _, body := ts.do(t, http.MethodPut, "/apis/apps/v1/namespaces/default/deployments/web/status", jsonBody, string(b))
	if code != http.StatusOK {
		t.Fatalf("status update: %d %s", code, body)
	}
	got := decodeDeployment(t, body)
	if *got.Spec.Replicas != 2 || got.Status.Replicas != 2 || got.Status.ObservedGeneration != 1 || got.Generation != 1 {
		t.Errorf("after /status: spec.replicas %d (want 2), status.replicas %d (want 2), generation %d (want 1)",
			*got.Spec.Replicas, got.Status.Replicas, got.Generation)
	}
}

func TestMainWriteIgnoresStatus(t *testing.T) {
	ts := startTestServer(t)
	d := createDeployment(t, ts)
	d.Spec.Replicas = int32Ptr(3)
	d.Status.Replicas = 7
	b, _ := json.Marshal(d)
	code, _, body := ts.do(t, http.MethodPut, "/apis/apps/v1/namespaces/default/deployments/web", jsonBody, string(b))
	if code != http.StatusOK {
		t.Fatalf("update: %d %s", code, body)
	}
	got := decodeDeployment(t, body)
	if *got.Spec.Replicas != 3 || got.Status.Replicas != 0 || got.Generation != 2 {
		t.Errorf("after update: spec.replicas %d (want 3), status.replicas %d (want 0), generation %d (want 2)",
			*got.Spec.Replicas, got.Status.Replicas, got.Generation)
	}
}

func TestStatusValidation(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, http.MethodPost, "/apis/apps/v1/namespaces/default/replicasets", jsonBody, `{
		"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs"},
		"spec":{"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	code, _, body = ts.do(t, http.MethodPatch, "/apis/apps/v1/namespaces/default/replicasets/rs/status", mergePatch, `{"status":{"replicas":-5}}`)
	wantStatus(t, "replicasets/status replicas -5", code, body, http.StatusUnprocessableEntity,
		`status.replicas: Invalid value: -5: must be greater than or equal to 0`)

	// A namespace's phase may only be Terminating once it is being deleted.
	code, _, body = ts.do(t, http.MethodPatch, "/api/v1/namespaces/default/status", mergePatch, `{"status":{"phase":"Terminating"}}`)
	wantStatus(t, "namespaces/status Terminating", code, body, http.StatusUnprocessableEntity,
		`Namespace "default" is invalid: status.Phase: Invalid value: "Terminating": may only be 'Active' if `+"`deletionTimestamp`"+` is empty`)
	code, _, body = ts.do(t, http.MethodPost, "/api/v1/namespaces/default/events", jsonBody,
		`{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m"}`)
	if code != http.StatusCreated {
		t.Errorf("create in default after the refused status write: %d %s", code, body)
	}
}

func TestFinalizeValidation(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, http.MethodPost, "/api/v1/namespaces", jsonBody, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	ns := &corev1.Namespace{}
	_ = json.Unmarshal([]byte(body), ns)
	ns.Spec.Finalizers = []corev1.FinalizerName{"bad"}
	ns.Status.Phase = corev1.NamespaceTerminating
	b, _ := json.Marshal(ns)
	code, _, body = ts.do(t, http.MethodPut, "/api/v1/namespaces/team/finalize", jsonBody, string(b))
	wantStatus(t, "finalize [bad]", code, body, http.StatusUnprocessableEntity,
		`spec.finalizers[0]: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified`)

	// A valid finalize changes spec.finalizers and nothing of status.
	ns.Spec.Finalizers = []corev1.FinalizerName{"example.com/keep"}
	b, _ = json.Marshal(ns)
	code, _, body = ts.do(t, http.MethodPut, "/api/v1/namespaces/team/finalize", jsonBody, string(b))
	if code != http.StatusOK {
		t.Fatalf("finalize: %d %s", code, body)
	}
	got := &corev1.Namespace{}
	_ = json.Unmarshal([]byte(body), got)
	if len(got.Spec.Finalizers) != 1 || got.Spec.Finalizers[0] != "example.com/keep" || got.Status.Phase != corev1.NamespaceActive {
		t.Errorf("after finalize: finalizers %v, phase %s", got.Spec.Finalizers, got.Status.Phase)
	}

	// The main resource keeps spec.finalizers: only /finalize changes them.
	got.Spec.Finalizers = nil
	b, _ = json.Marshal(got)
	_, _, body = ts.do(t, http.MethodPut, "/api/v1/namespaces/team", jsonBody, string(b))
	_ = json.Unmarshal([]byte(body), got)
	if len(got.Spec.Finalizers) != 1 {
		t.Errorf("an update of the namespace changed spec.finalizers: %v", got.Spec.Finalizers)
	}
	if code, _, body := ts.do(t, http.MethodPatch, "/api/v1/namespaces/team/finalize", mergePatch, `{}`); code != http.StatusMethodNotAllowed {
		t.Errorf("PATCH finalize: %d %s, want 405", code, body)
	}
}

func TestScaleView(t *testing.T) {
	ts := startTestServer(t)
	createDeployment(t, ts)
	const scale = "/apis/apps/v1/namespaces/default/deployments/web/scale"
	code, _, body := ts.do(t, http.MethodPut, scale, jsonBody, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":-1}}`)
	wantStatus(t, "scale -1", code, body, http.StatusUnprocessableEntity,
		`Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`)

	code, _, body = ts.do(t, http.MethodPatch, scale, mergePatch, `{"spec":{"replicas":5}}`)
	if code != http.StatusOK || !strings.Contains(body, `"kind":"Scale"`) || !strings.Contains(body, `"replicas":5`) {
		t.Fatalf("scale patch: %d %s", code, body)
	}
	d, err := ts.client(t).AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 5 || d.Generation != 2 {
		t.Errorf("after scale: replicas %d (want 5), generation %d (want 2)", *d.Spec.Replicas, d.Generation)
	}

	// A stale resourceVersion in the Scale is a precondition on the parent.
	code, _, body = ts.do(t, http.MethodPut, scale, jsonBody, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":1}}`)
	wantStatus(t, "stale scale", code, body, http.StatusConflict, "the object has been modified")
}

func TestUnavailableSubresources(t *testing.T) {
	ts := startTestServer(t)
	for _, sub := range []string{"log", "exec", "attach", "portforward", "ephemeralcontainers"} {
		code, _, body := ts.do(t, http.MethodGet, "/api/v1/namespaces/default/pods/p/"+sub, "", "")
		wantStatus(t, "pods/"+sub, code, body, http.StatusBadRequest, "miniapi runs no containers: pods/"+sub+" is not available")
	}
	code, _, body := ts.do(t, http.MethodGet, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", "", "")
	wantStatus(t, "metrics", code, body, http.StatusNotFound, "miniapi runs no containers: metrics.k8s.io is not available")
}

func TestVerbsNotServed(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, http.MethodDelete, "/api/v1/namespaces", "", "")
	wantStatus(t, "deletecollection of namespaces", code, body, http.StatusMethodNotAllowed, "")
	code, _, body = ts.do(t, http.MethodPost, "/apis/apps/v1/namespaces/default/deployments/web/status", jsonBody, "{}")
	wantStatus(t, "POST to status", code, body, http.StatusMethodNotAllowed, "")
}

// kube-apiserver starts a watch for any value of watch= but "0" and
// "false", and for a bare watch.
func TestWatchParameterSpellings(t *testing.T) {
	ts := startTestServer(t)
	for _, q := range []string{"watch=true", "watch=True", "watch=TRUE", "watch=1", "watch=yes", "watch=", "watch", "watch=0", "watch=false"} {
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/api/v1/namespaces?"+q, nil)
		ctx, cancel := context.WithCancel(context.Background())
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, _ := resp.Body.Read(buf)
		isWatch := strings.HasPrefix(string(buf[:n]), `{"type":"ADDED"`)
		if want := q != "watch=0" && q != "watch=false"; isWatch != want {
			t.Errorf("?%s: watch = %v, want %v (%s)", q, isWatch, want, buf[:n])
		}
		cancel()
		resp.Body.Close()
	}
}

func int32Ptr(v int32) *int32 { return &v }

func TestPartialObjectMetadata(t *testing.T) {
	ts := startTestServer(t)
	const partial = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	const partialList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	code, _, body := ts.do(t, http.MethodGet, "/api/v1/namespaces/default", "", "", "Accept", partial)
	if code != http.StatusOK || !strings.Contains(body, `"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1"`) || strings.Contains(body, `"spec"`) {
		t.Errorf("single: %d %s", code, body)
	}
	code, _, body = ts.do(t, http.MethodGet, "/api/v1/namespaces", "", "", "Accept", strings.Replace(partialList, "v=v1", "v=v1beta1", 1))
	if code != http.StatusOK || !strings.Contains(body, `"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1beta1"`) {
		t.Errorf("v1beta1 list: %d %s", code, body)
	}
	code, _, body = ts.do(t, http.MethodGet, "/api/v1/namespaces/default", "", "", "Accept", partialList)
	wantStatus(t, "list kind on a single get", code, body, http.StatusNotAcceptable,
		"you requested PartialObjectMetadataList, but the requested object is not a list (*core.Namespace)")
	code, _, body = ts.do(t, http.MethodGet, "/api/v1/namespaces", "", "", "Accept", partial)
	wantStatus(t, "single kind on a list", code, body, http.StatusNotAcceptable,
		"you requested PartialObjectMetadata, but the requested object is a list (*core.NamespaceList)")
}
