package server

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/pkg/apiserver"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
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
		err := checkExposure(&Config{Listen: c.listen, TLSCertFile: c.cert, TLSKeyFile: c.key, TokenAuthFile: c.tokens})
		if (err == nil) != c.ok {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestTokenAuth runs the real API server with the token file as its
// Authenticator: known tokens pass with their user, others get 401, and
// health checks need no token.
func TestTokenAuth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(path, []byte("s3cret,admin,1,\"system:masters,devs\"\nother,bob,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := loadTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	if tokens.first() != "s3cret" {
		t.Errorf("first token %q", tokens.first())
	}
	u, ok, _ := tokens.AuthenticateToken(context.Background(), "s3cret")
	if !ok || u.Username != "admin" || u.UID != "1" || strings.Join(u.Groups, ",") != "system:masters,devs" {
		t.Errorf("s3cret is %+v, %v", u, ok)
	}
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	api, err := apiserver.New(apiserver.Config{Store: store, Authenticator: tokens.authenticator(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, auth string
		code       int
	}{
		{"/api/v1/namespaces/default/pods", "Bearer s3cret", 200},
		{"/api/v1/namespaces/default/pods", "Bearer other", 200},
		{"/api/v1/namespaces/default/pods", "Bearer wrong", 401},
		{"/api/v1/namespaces/default/pods", "", 401},
		{"/readyz", "", 200},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", c.path, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		api.ServeHTTP(rec, req)
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
	var none *tokenFile
	if none.authenticator() != nil {
		t.Error("no token file gave a non-nil Authenticator")
	}
}
