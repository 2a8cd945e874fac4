package apiserver

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPanicAnswers500 checks that a handler's panic becomes a 500 Status
// and that the server goes on serving.
func TestPanicAnswers500(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), metrics: NewMetrics(nil)}
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/boom" {
			panic("boom")
		}
		_, _ = w.Write([]byte("fine"))
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/boom")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(body), `"reason":"InternalError"`) || resp.Header.Get("Audit-Id") == "" {
		t.Errorf("panic: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Get(srv.URL + "/ok")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "fine" || resp.Header.Get("Cache-Control") != "no-cache, private" {
		t.Errorf("after panic: %q %v", body, resp.Header)
	}
}
