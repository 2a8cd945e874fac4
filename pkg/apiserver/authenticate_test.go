package apiserver

import (
	"net/http"
	"testing"
)

// The Authorization scheme is matched without regard to case (RFC 7235),
// as kube-apiserver matches it; a known token under another scheme, or
// none, is still refused.
func TestBearerSchemeAnyCase(t *testing.T) {
	ts := startTokenServer(t)
	for _, c := range []struct {
		header string
		want   int
	}{
		{"Bearer " + adminToken, http.StatusOK},
		{"bearer " + adminToken, http.StatusOK},
		{"BEARER " + adminToken, http.StatusOK},
		{"bEaReR " + adminToken, http.StatusOK},
		{"Bearer  " + adminToken, http.StatusUnauthorized}, // kube: no token before the second space
		{"Basic " + adminToken, http.StatusUnauthorized},
		{"Bearer", http.StatusUnauthorized},
		{"Bearer ", http.StatusUnauthorized},
		{adminToken, http.StatusUnauthorized},
	} {
		code, _, body := ts.do(t, "GET", "/api/v1/namespaces", "", "", "Authorization", c.header)
		if code != c.want {
			t.Errorf("Authorization %q: %d, want %d\n%s", c.header, code, c.want, body)
		}
	}
}
