package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, target string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	resp := rec.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The shell names the namespace and whether a token is needed, for
// app.js to read, and lets the page load only its own files.
func TestIndex(t *testing.T) {
	for _, c := range []struct {
		target    string
		token     bool
		wantNS    string
		wantToken string
	}{
		{"/ui/", false, "default", "false"},
		{"/ui/?namespace=kube-system", true, "kube-system", "true"},
	} {
		resp, body := get(t, Handler(Options{TokenRequired: c.token}), http.MethodGet, c.target)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("%s: %d %s\n%s", c.target, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		for _, want := range []string{`data-namespace="` + c.wantNS + `"`, `data-token-required="` + c.wantToken + `"`, `<script src="app.js" defer>`} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the page lacks %s\n%s", c.target, want, body)
			}
		}
		// The token form must not send its input anywhere if submitted
		// natively, or the token would land in a URL and the request log.
		if !strings.Contains(body, `<form id="token-form" class="token" method="dialog" hidden>`) ||
			!strings.Contains(body, `<input id="token" type="password"`) {
			t.Errorf("%s: the token form could submit its input\n%s", c.target, body)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("%s: Content-Security-Policy %q", c.target, csp)
		}
	}
}

// A namespace that is not a DNS label is refused rather than put into the
// page, so nothing from the query string reaches the HTML but a label.
func TestIndexRefusesBadNamespace(t *testing.T) {
	resp, body := get(t, Handler(Options{}), http.MethodGet, "/ui/?namespace=%3Cscript%3E")
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(body, "<script>") {
		t.Errorf("%d\n%s", resp.StatusCode, body)
	}
}

func TestAssets(t *testing.T) {
	h := Handler(Options{})
	for path, wantType := range map[string]string{
		"/ui/app.js":  "text/javascript; charset=utf-8",
		"/ui/app.css": "text/css; charset=utf-8",
	} {
		resp, body := get(t, h, http.MethodGet, path)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wantType || len(body) < 100 {
			t.Errorf("%s: %d %q, %d bytes", path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
	if resp, _ := get(t, h, http.MethodGet, "/ui/other.js"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/ui/other.js: %d, want 404", resp.StatusCode)
	}
	if resp, _ := get(t, h, http.MethodPost, "/ui/"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /ui/: %d, want 405", resp.StatusCode)
	}
	if resp, _ := get(t, h, http.MethodHead, "/ui/app.js"); resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD /ui/app.js: %d", resp.StatusCode)
	}
}

// The page must work with no network access: none of its files loads
// anything from another host.
func TestNothingFromTheNetwork(t *testing.T) {
	for _, name := range []string{"static/index.html", "static/app.js", "static/app.css"} {
		b, err := static.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range []string{"http://", "https://", "//cdn", "@import"} {
			if strings.Contains(string(b), ref) {
				t.Errorf("%s refers to %q", name, ref)
			}
		}
	}
}
