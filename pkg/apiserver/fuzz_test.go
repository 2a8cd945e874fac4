package apiserver

// Fuzz targets for what a client sends: bodies in every content type,
// the patch types and apply, list and watch query parameters (selectors,
// limits, continue tokens, resourceVersions). Each request goes through
// the whole handler; the property is the one every answer must keep: no
// panic, and an error is a Kubernetes Status whose code is the HTTP code.
// `make test` runs each for a few seconds (make fuzz-smoke), `make fuzz`
// for longer; testdata/fuzz holds the seed corpora.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// fuzzServer is an in-process server over a store without fsync, with a
// Deployment "web" to patch; requests are served without a network.
func fuzzServer(f *testing.F) *Server {
	f.Helper()
	store, err := boltstore.Open(filepath.Join(f.TempDir(), "db"), boltstore.Options{HistorySize: 100, NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	api, err := New(Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	if err := api.Bootstrap(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		_ = api.EndWatches(context.Background())
		_ = store.Close()
	})
	if rec := serveWithin(api, time.Minute, "POST", deployments, "application/json", []byte(webDeployment)); rec.Code != http.StatusCreated {
		f.Fatalf("creating web: %d %s", rec.Code, rec.Body)
	}
	return api
}

// serve answers one request in process. A watch ends after 20 ms. A
// target that is not a URL at all is nil: no client could send it.
func serve(api *Server, method, target, contentType string, body []byte) *httptest.ResponseRecorder {
	return serveWithin(api, 20*time.Millisecond, method, target, contentType, body)
}

// serveWithin is serve with another bound on the request; the fixture's
// own writes get a long one, so a loaded machine (the race detector, the
// other test packages) cannot fail the setup.
func serveWithin(api *Server, timeout time.Duration, method, target, contentType string, body []byte) *httptest.ResponseRecorder {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1"+target, bytes.NewReader(body))
	if err != nil {
		return nil
	}
	req.RemoteAddr = "127.0.0.1:1"
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, req)
	return rec
}

// checkAnswer fails on a recovered panic and on an error answer that is
// not a Status of the same code.
func checkAnswer(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec == nil {
		return
	}
	body := rec.Body.String()
	if strings.Contains(body, "the server had a problem handling the request") {
		t.Fatalf("%s: the handler panicked: %s", what, body)
	}
	if rec.Code < 400 {
		return
	}
	var st metav1.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Kind != "Status" || int(st.Code) != rec.Code {
		t.Fatalf("%s: %d answered with no Status of that code: %s", what, rec.Code, body)
	}
}

// bodyTypes are the content types a body may come in.
var bodyTypes = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}

// FuzzCreateBody posts a body, in one of the content types, as a
// ConfigMap and as a Deployment (dry run: nothing is stored).
func FuzzCreateBody(f *testing.F) {
	api := fuzzServer(f)
	f.Add(uint8(0), []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`))
	f.Add(uint8(1), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"))
	f.Add(uint8(2), []byte("k8s\x00\n\x0c\n\x02v1\x12\x06ConfigMap\x12\x05\n\x03\n\x01a"))
	f.Add(uint8(0), []byte(webDeployment))
	f.Add(uint8(1), []byte("{"))
	f.Fuzz(func(t *testing.T, typ uint8, body []byte) {
		ct := bodyTypes[int(typ)%len(bodyTypes)]
		for _, path := range []string{"/api/v1/namespaces/default/configmaps", deployments} {
			checkAnswer(t, "POST "+path+" "+ct, serve(api, "POST", path+"?dryRun=All", ct, body))
		}
	})
}

// patchTypes are the patch content types, apply last.
var patchTypes = []string{"application/json-patch+json", mergePatchType, "application/strategic-merge-patch+json", "application/apply-patch+yaml"}

// FuzzPatch patches the Deployment web with each patch type (dry run).
func FuzzPatch(f *testing.F) {
	api := fuzzServer(f)
	f.Add(uint8(0), []byte(`[{"op":"replace","path":"/spec/replicas","value":3}]`))
	f.Add(uint8(0), []byte(`[{"op":"move","from":"/spec","path":"/spec/template"}]`))
	f.Add(uint8(1), []byte(`{"spec":{"replicas":null,"template":{"spec":{"containers":null}}}}`))
	f.Add(uint8(2), []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","$patch":"delete"}]}}}}`))
	f.Add(uint8(2), []byte(`{"$setElementOrder/containers":[{"name":"x"}]}`))
	f.Add(uint8(3), []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n"))
	f.Fuzz(func(t *testing.T, typ uint8, patch []byte) {
		ct := patchTypes[int(typ)%len(patchTypes)]
		path := deployments + "/web?dryRun=All&fieldManager=fuzz"
		checkAnswer(t, "PATCH "+ct, serve(api, "PATCH", path, ct, patch))
	})
}

// FuzzListQuery lists and watches pods with a query string: selectors,
// limit, continue, resourceVersion(Match), timeoutSeconds, watch.
func FuzzListQuery(f *testing.F) {
	api := fuzzServer(f)
	for _, q := range []string{
		"labelSelector=app%3Dweb,tier+notin+(a,b)", "fieldSelector=metadata.name%3Dx,status.phase!%3DRunning",
		"limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0",
		"resourceVersion=1&resourceVersionMatch=Exact", "resourceVersion=99999999999&resourceVersionMatch=NotOlderThan",
		"watch=true&resourceVersion=1&allowWatchBookmarks=true", "watch=1&timeoutSeconds=-1", "labelSelector=!!",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		for _, path := range []string{"/api/v1/namespaces/default/pods", "/apis/apps/v1/deployments"} {
			checkAnswer(t, "GET "+path+"?"+query, serve(api, "GET", path+"?"+query, "", nil))
		}
	})
}
