package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckExposure(t *testing.T) {
	cases := []struct {
		listen, cert, key, tokens string
		ok                        bool
	}{
		{"127.0.0.1:8080", "", "", "", true},
		{"[::1]:8080", "", "", "", true},
		{"localhost:8080", "", "", "", true},
		{"0.0.0.0:8080", "", "", "", false},
		{"10.0.0.1:8080", "c.pem", "k.pem", "", false},
		{"10.0.0.1:8080", "", "", "tokens.csv", false},
		{"10.0.0.1:8080", "c.pem", "k.pem", "tokens.csv", true},
		{"127.0.0.1:8080", "c.pem", "", "", false},
	}
	for _, c := range cases {
		err := checkExposure(&config{Listen: c.listen, TLSCertFile: c.cert, TLSKeyFile: c.key, TokenAuthFile: c.tokens})
		if (err == nil) != c.ok {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

func TestTokenAuth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte("s3cret,admin,1,\"system:masters\"\nother,bob,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := loadTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	if tokens.first() != "s3cret" {
		t.Errorf("first token %q", tokens.first())
	}
	h := tokens.authenticate(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("in")) }))
	cases := []struct {
		path, auth string
		code       int
	}{
		{"/api/v1/pods", "Bearer s3cret", 200},
		{"/api/v1/pods", "Bearer other", 200},
		{"/api/v1/pods", "Bearer wrong", 401},
		{"/api/v1/pods", "", 401},
		{"/readyz", "", 200},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", c.path, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		h.ServeHTTP(rec, req)
		if rec.Code != c.code {
			t.Errorf("%s with %q: %d, want %d", c.path, c.auth, rec.Code, c.code)
		}
		if rec.Code == 401 && !strings.Contains(rec.Body.String(), `"reason":"Unauthorized","code":401`) {
			t.Errorf("401 body: %s", rec.Body.String())
		}
	}
	if _, err := loadTokens(filepath.Join(t.TempDir(), "missing.csv")); err == nil {
		t.Error("a missing token file loaded")
	}
}
