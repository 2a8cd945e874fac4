package minictl

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a reverse proxy in front of miniapi that writes down the
// requests a tool sends (discovery aside): method, path and query,
// Accept and Content-Type.
type recorder struct {
	mu   sync.Mutex
	reqs []string
}

func (r *recorder) start(t *testing.T, target string) *httptest.Server {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1 // watches stream
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p := req.URL.Path
		if p != "/api" && p != "/apis" && p != "/version" && !strings.HasPrefix(p, "/openapi") && !discoveryPath.MatchString(p) {
			r.mu.Lock()
			r.reqs = append(r.reqs, fmt.Sprintf("%s %s\n    Accept: %s\n    Content-Type: %s",
				req.Method, req.URL.RequestURI(), req.Header.Get("Accept"), req.Header.Get("Content-Type")))
			r.mu.Unlock()
		}
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (r *recorder) take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := strings.Join(r.reqs, "\n")
	r.reqs = nil
	return out
}

// TestRequestsMatchKubectl: minictl sends kubectl's requests — paths,
// queries and Accept headers — for get, get -w and scale (the PUT of a
// precondition scale carries a JSON Content-Type where kubectl sends none).
func TestRequestsMatchKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=1")
	waitSettled(t, s, "web", 1)
	rec := &recorder{}
	proxy := rec.start(t, s.URL)
	for _, args := range [][]string{
		{"get", "deploy", "web"},
		{"get", "deploy", "nope"},
		{"get", "deploy,rs,pods"},
		{"get", "pods", "-A", "-o", "name"},
		{"get", "deploy", "web", "-o", "yaml"},
		{"get", "pods", "-l", "app=web", "--field-selector=status.phase=Running", "--chunk-size=1"},
		{"scale", "deploy", "web", "--replicas=1"},
		{"scale", "deploy", "web", "--replicas=1", "--current-replicas=1"},
		{"scale", "deploy", "web", "--replicas=1", "--current-replicas=3"},
	} {
		full := append([]string{"--server", proxy.URL}, args...)
		rec.take()
		s.Run("kubectl", "", full...)
		k := rec.take()
		s.Run("minictl", "", full...)
		m := rec.take()
		m = putContentType.ReplaceAllString(m, "$1")
		if !strings.Contains(k, "/deployments") && !strings.Contains(k, "/pods") {
			t.Errorf("%v: the proxy recorded no kubectl request: %q", args, k)
		}
		if k != m {
			t.Errorf("%v: requests differ\n=== kubectl\n%s\n=== minictl\n%s", args, k, m)
		}
	}

	// A watch lists, then watches from the list's resourceVersion with the
	// same Accept header.
	for _, tool := range []string{"kubectl", "minictl"} {
		rec.take()
		p := s.StartTool(t, tool, nil, "--server", proxy.URL, "get", "rs", "-l", "app=web", "-w")
		p.WaitForOutput(t, "\nweb-", 30*time.Second)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(rec.peek(), "watch=true") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		p.Interrupt(t)
		got := rec.take()
		lines := strings.Split(got, "\n")
		if len(lines) != 6 || !strings.Contains(lines[0], "replicasets?labelSelector=app%3Dweb&limit=500") ||
			!strings.Contains(lines[3], "replicasets?labelSelector=app%3Dweb&resourceVersion=") || !strings.HasSuffix(lines[3], "&watch=true") ||
			lines[1] != lines[4] || !strings.Contains(lines[1], "as=Table") {
			t.Errorf("%s get -w sent:\n%s", tool, got)
		}
	}
}

func (r *recorder) peek() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.reqs, "\n")
}

// putContentType matches the one known difference: minictl's PUT of a
// Scale says its body is JSON; kubectl's sends no Content-Type.
var putContentType = regexp.MustCompile(`(PUT [^\n]+\n    Accept: [^\n]+\n    Content-Type: )application/json`)

// discoveryPath matches the legacy per-group discovery documents.
var discoveryPath = regexp.MustCompile(`^/(api/v1|apis/[^/]+/[^/]+)$`)
