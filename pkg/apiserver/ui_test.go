package apiserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// On a server without tokens the page is served to anyone (the server
// listens on loopback only), says no token is needed, and /ui leads to it.
func TestUIWithoutTokens(t *testing.T) {
	ts := startTestServer(t)
	code, ctype, body := ts.do(t, "GET", "/ui/?namespace=default", "", "")
	if code != http.StatusOK || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, `data-token-required="false"`) {
		t.Fatalf("GET /ui/: %d %s\n%s", code, ctype, body)
	}
	req, err := http.NewRequest("GET", ts.url+"/ui?namespace=kube-system", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/?namespace=kube-system" {
		t.Errorf("GET /ui: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// With tokens, the page's files load without one over loopback (a browser
// cannot send a token with a page load; the page then asks for it), while
// the API still wants it and the files want it over other connections.
func TestUIBehindTheToken(t *testing.T) {
	ts := startTokenServer(t)
	code, _, body := ts.do(t, "GET", "/ui/", "", "")
	if code != http.StatusOK || !strings.Contains(body, `data-token-required="true"`) {
		t.Fatalf("GET /ui/ over loopback without a token: %d\n%s", code, body)
	}
	if code, _, _ := ts.do(t, "GET", "/ui/app.js", "", ""); code != http.StatusOK {
		t.Errorf("GET /ui/app.js over loopback without a token: %d", code)
	}
	if code, _, _ := ts.do(t, "GET", "/api/v1/namespaces/default/pods", "", ""); code != http.StatusUnauthorized {
		t.Errorf("the API over loopback without a token: %d, want 401", code)
	}

	remote := func(token string) int {
		req := httptest.NewRequest("GET", "/ui/app.js", nil)
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 6443}))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		ts.api.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := remote(""); code != http.StatusUnauthorized {
		t.Errorf("GET /ui/app.js over a non-loopback connection without a token: %d, want 401", code)
	}
	if code := remote(adminToken); code != http.StatusOK {
		t.Errorf("GET /ui/app.js over a non-loopback connection with the token: %d, want 200", code)
	}
}
