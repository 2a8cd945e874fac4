package server

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// stalledCreate sends the headers and 6 bytes of a 100,000-byte create
// and no more, as a careless or hostile client might.
func stalledCreate(t *testing.T, s *harness.Server) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"meta", s.Addr)
	return conn
}

// --request-timeout cuts off a client that stops sending its body: it
// gets 504 and its connection is closed.
func TestRequestTimeoutCutsOffStalledBody(t *testing.T) {
	s := start(t, "--request-timeout=200ms")
	conn := stalledCreate(t, s)
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // a hung server fails the test
	out, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("the connection was not closed: %v (read %q)", err, out)
	}
	if !strings.HasPrefix(string(out), "HTTP/1.1 504 ") || !strings.Contains(string(out), `"reason":"Timeout"`) {
		t.Fatalf("stalled body answered:\n%s", out)
	}
}

// --max-mutating-requests-inflight: while a stalled write holds the one
// slot, another write gets 429 with Retry-After and reads go on.
func TestMaxMutatingRequestsInflightFlag(t *testing.T) {
	s := start(t, "--max-mutating-requests-inflight=1")
	stalledCreate(t, s)
	waitUntil(t, 10*time.Second, func() string {
		_, _, metrics := raw(t, s, "GET", "/metrics", "", "")
		if !strings.Contains(metrics, `apiserver_current_inflight_requests{request_kind="mutating"} 1`) {
			return "the stalled write is not in flight"
		}
		return ""
	})
	code, h, body := raw(t, s, "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"c"}}`)
	if code != http.StatusTooManyRequests || h.Get("Retry-After") != "1" || !strings.Contains(body, `"reason":"TooManyRequests"`) {
		t.Fatalf("second write: %d Retry-After %q\n%s", code, h.Get("Retry-After"), body)
	}
	if code, _, body := raw(t, s, "GET", "/api/v1/namespaces/default/configmaps", "", ""); code != http.StatusOK {
		t.Fatalf("a read: %d %s", code, body)
	}
}
