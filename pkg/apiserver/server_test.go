package apiserver

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// testServer is a Server over a real bbolt store in a temporary directory,
// behind httptest.
type testServer struct {
	api *Server
	url string
}

func startTestServer(t testing.TB) *testServer {
	t.Helper()
	return startTestServerWith(t, Config{})
}

// startTestServerWith is startTestServer with cfg's settings; the store
// and the logger are the test's.
func startTestServerWith(t testing.TB, cfg Config) *testServer {
	t.Helper()
	return startTestServerOver(t, cfg, nil)
}

// startTestServerOver is startTestServerWith over wrap(the bbolt store),
// for tests that hook into the store's calls; nil wrap: the store itself.
func startTestServerOver(t testing.TB, cfg Config, wrap func(storage.Store) storage.Store) *testServer {
	t.Helper()
	return startTestServerOn(t, cfg, wrap, nil)
}

// startTestServerOn is startTestServerOver on listen(a loopback listener)
// (nil: the listener itself), with cfg.Logger when set.
func startTestServerOn(t testing.TB, cfg Config, wrap func(storage.Store) storage.Store, listen func(net.Listener) net.Listener) *testServer {
	t.Helper()
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{HistorySize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store = store
	if wrap != nil {
		cfg.Store = wrap(store)
	}
	var logOut io.Writer = io.Discard
	if os.Getenv("MINIAPI_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logOut, nil))
	}
	api, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(api)
	if listen != nil {
		hs.Listener = listen(hs.Listener)
	}
	hs.Start()
	t.Cleanup(func() {
		_ = api.EndWatches(context.Background())
		hs.Close()
		checkSharedObjects(t, api)
		_ = store.Close()
	})
	return &testServer{api: api, url: hs.URL}
}

func (ts *testServer) client(t testing.TB) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(&rest.Config{Host: ts.url, QPS: 1000, Burst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// do sends a raw request and returns status, Content-Type and body.
func (ts *testServer) do(t testing.TB, method, path, contentType, body string, header ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}
