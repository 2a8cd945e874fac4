package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/storage"
)

// heldStore holds every Get of a key ending in "/held" until the test
// releases it or the request's context ends, so a test can keep a request
// in flight without timing.
type heldStore struct {
	storage.Store
	entered chan struct{} // one value per held Get, when it starts waiting
	release chan struct{} // closed: held Gets go on
	gaveUp  chan error    // the context's error of a Get that stopped waiting
}

func holdGets(s storage.Store) storage.Store {
	return &heldStore{Store: s, entered: make(chan struct{}, 16), release: make(chan struct{}), gaveUp: make(chan error, 16)}
}

func (h *heldStore) Get(ctx context.Context, key string) (storage.KV, error) {
	if !strings.HasSuffix(key, "/held") {
		return h.Store.Get(ctx, key)
	}
	h.entered <- struct{}{}
	select {
	case <-h.release:
		return h.Store.Get(ctx, key)
	case <-ctx.Done():
		h.gaveUp <- ctx.Err()
		return storage.KV{}, ctx.Err()
	}
}

// startHeldServer starts a test server over a heldStore.
func startHeldServer(t *testing.T, limits Limits) (*testServer, *heldStore) {
	t.Helper()
	var held *heldStore
	ts := startTestServerOver(t, Config{Limits: limits}, func(s storage.Store) storage.Store {
		held = holdGets(s).(*heldStore)
		return held
	})
	return ts, held
}

// status decodes a Status body.
func status(t *testing.T, body string) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("not a Status: %v\n%s", err, body)
	}
	return st
}

// patientClient gives up on a request the server never answers, so that
// a test of a missing bound fails instead of hanging.
var patientClient = &http.Client{Timeout: 20 * time.Second}

func get(t *testing.T, rawURL string) (*http.Response, string) {
	t.Helper()
	resp, err := patientClient.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return resp, string(b)
}

// A read past --max-requests-inflight gets kube's 429 with Retry-After,
// and an open watch does not take a read's place.
func TestMaxRequestsInflight(t *testing.T) {
	ts, held := startHeldServer(t, Limits{MaxRequestsInflight: 1})
	pods := ts.url + "/api/v1/namespaces/default/pods"

	watch, err := patientClient.Get(pods + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	if watch.StatusCode != http.StatusOK {
		t.Fatalf("watch: %d", watch.StatusCode)
	}

	first := make(chan int, 1)
	go func() {
		resp, err := patientClient.Get(pods + "/held")
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	<-held.entered // the one read allowed is in flight, beside the watch

	resp, body := get(t, pods)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("second read: %d Retry-After %q, want 429 with Retry-After 1\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	st := status(t, body)
	if st.Reason != metav1.StatusReasonTooManyRequests || st.Message != "Too many requests, please try again later." ||
		st.Details == nil || st.Details.RetryAfterSeconds != 1 {
		t.Errorf("429 Status: %+v", st)
	}

	close(held.release)
	if code := <-first; code != http.StatusNotFound {
		t.Errorf("held read answered %d, want 404", code)
	}
	if resp, body := get(t, pods); resp.StatusCode != http.StatusOK {
		t.Errorf("read after the slot was given back: %d %s", resp.StatusCode, body)
	}
}

// rawRequest sends a request's headers and the first sent bytes of its
// body on a connection of its own, and leaves the rest unsent.
func rawRequest(t *testing.T, serverURL, method, path, body string, sent int) net.Conn {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		method, path, u.Host, len(body), body[:sent])
	return conn
}

// inflightMetric is the value /metrics shows for
// apiserver_current_inflight_requests of kind.
func inflightMetric(t *testing.T, ts *testServer, kind string) string {
	t.Helper()
	_, body := get(t, ts.url+"/metrics")
	prefix := fmt.Sprintf("apiserver_current_inflight_requests{request_kind=%q} ", kind)
	for line := range strings.Lines(body) {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// A write past --max-mutating-requests-inflight gets 429 while reads go
// on; the held write is the one whose body has not all arrived.
func TestMaxMutatingRequestsInflight(t *testing.T) {
	ts := startTestServerWith(t, Config{Limits: Limits{MaxMutatingRequestsInflight: 1}})
	path := "/api/v1/namespaces/default/configmaps"
	body := `{"metadata":{"name":"slow"}}`
	conn := rawRequest(t, ts.url, "POST", path, body, 6)
	waitFor(t, "the slow write to be in flight", func() bool { return inflightMetric(t, ts, kindMutating) == "1" })

	code, _, out := ts.do(t, "POST", path, "application/json", `{"metadata":{"name":"fast"}}`)
	if code != http.StatusTooManyRequests || status(t, out).Reason != metav1.StatusReasonTooManyRequests {
		t.Fatalf("second write: %d %s, want 429 TooManyRequests", code, out)
	}
	if code, _, out := ts.do(t, "GET", path, "", ""); code != http.StatusOK {
		t.Fatalf("a read beside the held write: %d %s", code, out)
	}

	if _, err := io.WriteString(conn, body[6:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("slow write: %d", resp.StatusCode)
	}
	waitFor(t, "the slow write's slot to be given back", func() bool { return inflightMetric(t, ts, kindMutating) == "0" })
	if code, _, out := ts.do(t, "POST", path, "application/json", `{"metadata":{"name":"fast"}}`); code != http.StatusCreated {
		t.Fatalf("write after the slot was given back: %d %s", code, out)
	}
}

// A request past --request-timeout gets kube's 504, and its context ends
// so that the store call waiting on it stops.
func TestRequestTimeout(t *testing.T) {
	ts, held := startHeldServer(t, Limits{RequestTimeout: 50 * time.Millisecond})
	resp, body := get(t, ts.url+"/api/v1/namespaces/default/pods/held")
	st := status(t, body)
	if resp.StatusCode != http.StatusGatewayTimeout || st.Reason != metav1.StatusReasonTimeout ||
		st.Message != "Timeout: request did not complete within requested timeout - context deadline exceeded" {
		t.Fatalf("held read: %d %+v", resp.StatusCode, st)
	}
	if err := <-held.gaveUp; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the store call ended with %v, want the request's deadline", err)
	}
}

// ?timeout= shortens a request's deadline, as kube's request-deadline
// filter does; one that does not parse is refused.
func TestRequestTimeoutParameter(t *testing.T) {
	ts, held := startHeldServer(t, Limits{})
	resp, body := get(t, ts.url+"/api/v1/namespaces/default/pods/held?timeout=50ms")
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("held read with ?timeout=50ms: %d %s", resp.StatusCode, body)
	}
	<-held.gaveUp
	resp, body = get(t, ts.url+"/api/v1/namespaces/default/pods?timeout=soon")
	if st := status(t, body); resp.StatusCode != http.StatusBadRequest ||
		!strings.HasPrefix(st.Message, "invalid timeout specified in the request URL - ") {
		t.Fatalf("?timeout=soon: %d %+v", resp.StatusCode, st)
	}
}

// A client that sends headers and 6 bytes of a 100,000-byte body and
// stops is answered 504 at the request deadline and its connection
// closed.
func TestStalledBodyIsCutOff(t *testing.T) {
	ts := startTestServerWith(t, Config{Limits: Limits{RequestTimeout: 100 * time.Millisecond}})
	body := `{"metadata":{"name":"stalled"},"data":{"k":"` + strings.Repeat("x", 100000-47) + `"}}`
	conn := rawRequest(t, ts.url, "POST", "/api/v1/namespaces/default/configmaps", body, 6)
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // a hung server fails the test
	out, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("the connection was not closed: %v (read %q)", err, out)
	}
	if !strings.HasPrefix(string(out), "HTTP/1.1 504 ") || !strings.Contains(string(out), "request did not complete within requested timeout") {
		t.Fatalf("stalled body answered:\n%s", out)
	}
}

// Watches are exempt from --request-timeout: one opened before a read
// that timed out still delivers an event written after.
func TestWatchOutlivesRequestTimeout(t *testing.T) {
	ts, held := startHeldServer(t, Limits{RequestTimeout: 50 * time.Millisecond})
	watch, err := patientClient.Get(ts.url + "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	if resp, body := get(t, ts.url+"/api/v1/namespaces/default/pods/held"); resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("held read: %d %s", resp.StatusCode, body)
	}
	<-held.gaveUp
	// The watch began before the read; its request timeout would be over.
	res, _ := ts.api.reg.Lookup(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	if _, err := held.Create(context.Background(), objectKey(res, "default", "late"), []byte(`{"metadata":{"name":"late","namespace":"default"}}`)); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(watch.Body)
	for {
		var ev struct {
			Type   string
			Object metav1.PartialObjectMetadata
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("watch ended before the late write: %v", err)
		}
		if ev.Type == "ADDED" && ev.Object.Name == "late" {
			return
		}
	}
}

// A watch that sets no timeoutSeconds ends after --min-request-timeout
// (at most twice it), as kube-apiserver ends it, so clients re-watch.
func TestWatchMinRequestTimeout(t *testing.T) {
	ts := startTestServerWith(t, Config{Limits: Limits{MinRequestTimeout: 100 * time.Millisecond}})
	resp, body := get(t, ts.url+"/api/v1/namespaces/default/configmaps?watch=true")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %d %s", resp.StatusCode, body)
	}
}

// requestKind sorts requests the way kube-apiserver's limits do.
func TestRequestKind(t *testing.T) {
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/api/v1/namespaces/default/pods", kindReadOnly},
		{"GET", "/api/v1/namespaces/default/pods?watch=true", kindLongRunning},
		{"GET", "/apis/apps/v1/deployments?watch=1", kindLongRunning},
		{"GET", "/api/v1/namespaces/default/pods?watch=false", kindReadOnly},
		{"GET", "/api/v1/namespaces/default/pods/p/log", kindLongRunning},
		{"POST", "/api/v1/namespaces/default/pods/p/exec", kindLongRunning},
		{"GET", "/api/v1/namespaces/default/services/s/proxy", kindLongRunning},
		{"GET", "/api/v1/namespaces/default/pods/log", kindReadOnly}, // a pod named log
		{"GET", "/api/v1/nodes/n/proxy", kindLongRunning},
		{"GET", "/openapi/v2", kindReadOnly},
		{"POST", "/api/v1/namespaces/default/pods", kindMutating},
		{"PATCH", "/api/v1/namespaces/default/pods/p", kindMutating},
		{"DELETE", "/api/v1/namespaces/default/pods", kindMutating},
	} {
		r, err := http.NewRequest(c.method, "http://x"+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := requestKind(r); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.method, c.path, got, c.want)
		}
	}
}
