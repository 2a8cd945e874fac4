package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Default carries kube-apiserver's defaults for the request limits.
func TestDefaultLimitsAreKubes(t *testing.T) {
	c := Default()
	if c.RequestTimeout != time.Minute || c.MinRequestTimeout != 1800 || c.MaxRequestsInflight != 400 || c.MaxMutatingRequestsInflight != 200 {
		t.Errorf("defaults: --request-timeout %v --min-request-timeout %d --max-requests-inflight %d --max-mutating-requests-inflight %d",
			c.RequestTimeout, c.MinRequestTimeout, c.MaxRequestsInflight, c.MaxMutatingRequestsInflight)
	}
}

// stalledPost sends the headers and 6 bytes of a 100,000-byte create to
// s and sends no more.
func stalledPost(t *testing.T, s *Server) net.Conn {
	t.Helper()
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"meta", u.Host)
	return conn
}

func post(t *testing.T, s *Server, name string) int {
	t.Helper()
	resp, err := http.Post(s.URL()+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(`{"metadata":{"name":"`+name+`"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Each server has its own limits: one with --max-mutating-requests-inflight
// 1 refuses a second write while a stalled one holds its slot, while the
// other server in the process takes writes, and cuts off a stalled body
// at its --request-timeout.
func TestRequestLimitsPerServer(t *testing.T) {
	ctx := context.Background()
	cfgA := testConfig(t)
	cfgA.Controllers, cfgA.RequestTimeout = false, 100*time.Millisecond
	cfgB := testConfig(t)
	cfgB.Controllers, cfgB.MaxMutatingRequestsInflight = false, 1
	a, err := Start(ctx, cfgA)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	b, err := Start(ctx, cfgB)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()

	held := stalledPost(t, b)
	waitFor(t, "b's stalled write to hold its slot", func() bool {
		resp, err := http.Get(b.URL() + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(body), `apiserver_current_inflight_requests{request_kind="mutating"} 1`)
	})
	if code := post(t, b, "second"); code != http.StatusTooManyRequests {
		t.Errorf("a second write to b: %d, want 429", code)
	}
	if code := post(t, a, "on-a"); code != http.StatusCreated {
		t.Errorf("a write to a: %d, want 201", code)
	}

	conn := stalledPost(t, a)
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // a hung server fails the test
	out, err := io.ReadAll(conn)
	if err != nil || !strings.HasPrefix(string(out), "HTTP/1.1 504 ") {
		t.Errorf("a stalled body on a: %v\n%s", err, out)
	}
	held.Close()
}
