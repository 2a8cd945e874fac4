// Package crd runs the real kubectl 1.37 (bin/kubectl), raw HTTP requests
// and client-go against bin/miniapi's CustomResourceDefinitions and custom
// resources, and compares what they get with what a real kube-apiserver
// 1.37 answered (../shared/reference/kinds-crd-ssa-1.37.md, section 23).
//
// Values that differ by nature are masked (harness.Mask): uids,
// timestamps and resourceVersions. Raw requests send curl's User-Agent, so
// the server indents its JSON as it did for the reference's curl.
package crd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// start runs a fresh miniapi; nothing here needs durable writes or pods.
func start(t *testing.T) *harness.Server {
	t.Helper()
	return harness.Start(t, "--unsafe-no-fsync", "--nodes=1")
}

// kubectl runs kubectl with stdin (may be empty).
func kubectl(s *harness.Server, stdin string, args ...string) harness.Result {
	return s.Run("kubectl", stdin, args...)
}

// ok runs kubectl and fails the test unless it exits 0.
func ok(t *testing.T, s *harness.Server, args ...string) harness.Result {
	t.Helper()
	res := kubectl(s, "", args...)
	if res.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), res)
	}
	return res
}

// okIn is ok with stdin.
func okIn(t *testing.T, s *harness.Server, stdin string, args ...string) harness.Result {
	t.Helper()
	res := kubectl(s, stdin, args...)
	if res.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), res)
	}
	return res
}

// expect runs kubectl with stdin and compares exit code, stdout and
// stderr, masked, with the reference's.
func expect(t *testing.T, s *harness.Server, stdin string, code int, stdout, stderr string, args ...string) harness.Result {
	t.Helper()
	res := kubectl(s, stdin, args...)
	if res.ExitCode != code || harness.Mask(res.Stdout) != harness.Mask(stdout) || harness.Mask(res.Stderr) != harness.Mask(stderr) {
		t.Errorf("kubectl %s:\n got %s\nwant exit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), res, code, stdout, stderr)
	}
	return res
}

// expectOut: exit 0, exactly this stdout (masked), nothing on stderr.
func expectOut(t *testing.T, s *harness.Server, stdout string, args ...string) harness.Result {
	t.Helper()
	return expect(t, s, "", 0, stdout, "", args...)
}

// createIn pipes a manifest to `kubectl create -f -` and expects it created.
func createIn(t *testing.T, s *harness.Server, manifest, want string) {
	t.Helper()
	expect(t, s, manifest, 0, want, "", "create", "-f", "-")
}

// file writes a manifest into the test's temp dir and returns its path.
func file(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// createCRD creates a CRD from its manifest and waits until it is
// Established, as the reference's `kubectl create -f && kubectl wait`.
func createCRD(t *testing.T, s *harness.Server, manifest string) {
	t.Helper()
	okIn(t, s, manifest, "create", "-f", "-")
	name := between(manifest, "metadata:\n  name: ", "\n")
	ok(t, s, "wait", "--for=condition=Established", "--timeout=10s", "crd/"+name)
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}

// reply is a raw HTTP answer.
type reply struct {
	code   int
	header http.Header
	body   string
}

// curl sends a request as the reference's curl did (its User-Agent makes
// kube-apiserver indent JSON). headers are name, value pairs.
func curl(t *testing.T, s *harness.Server, method, path, body string, headers ...string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "curl/8.5.0")
	req.Header.Set("Accept", "*/*")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{code: resp.StatusCode, header: resp.Header, body: string(b)}
}

// curlI renders a reply as the reference prints `curl -i`: the status
// line, content-type, any warning headers, a blank line and the body
// (without the trailing newline, which the reference cannot show).
func (r reply) curlI() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/2 %d \ncontent-type: %s\n", r.code, r.header.Get("Content-Type"))
	for _, w := range r.header.Values("Warning") {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	b.WriteString("\n" + strings.TrimSuffix(r.body, "\n"))
	return b.String()
}

// expectCurl compares a reply, masked, with the reference's `curl -i`.
func expectCurl(t *testing.T, what string, r reply, want string) {
	t.Helper()
	if got := harness.Mask(r.curlI()); got != harness.Mask(want) {
		t.Errorf("%s:\n got:\n%s\nwant:\n%s", what, r.curlI(), want)
	}
}

// indentedJSON is what the server's JSON looks like indented (jq's
// default output, and the form curl gets from kube-apiserver), so
// content can be compared apart from layout.
func indentedJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(strings.TrimSpace(s)), "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return b.String()
}

// compactJSON marshals v as jq -c prints it (no HTML escaping).
func compactJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// eventually polls f every 20 ms until it returns "" or timeout passes,
// then fails with f's last complaint.
func eventually(t *testing.T, timeout time.Duration, f func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		msg := f()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// same reports a difference between got and want, masked, in a message.
func same(what, got, want string) string {
	if harness.Mask(got) == harness.Mask(want) {
		return ""
	}
	return fmt.Sprintf("%s:\n got:\n%s\nwant:\n%s", what, got, want)
}

// ageUnder10s matches an AGE cell of one digit and seconds at the end of a
// table line (the last column), keeping what precedes it.
var ageUnder10s = regexp.MustCompile(`(?m)(\s)\ds$`)

// replaced returns s with old replaced once, failing if old is missing.
func replaced(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in %s", old, s)
	}
	return strings.Replace(s, old, new, 1)
}

// firstLines is `head -n`.
func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

// containsAll reports whether s holds every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
