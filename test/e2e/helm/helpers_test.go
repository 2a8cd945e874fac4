// Package helm runs the real helm v3.22.0 (bin/helm, built by `make helm`
// from helm.sh/helm/v3) against bin/miniapi, unchanged, with its default
// storage driver: every release revision is a Secret in the release's
// namespace. Each test starts its own server.
package helm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// cluster is one miniapi server and the helm folders of the user driving it.
type cluster struct {
	*harness.Server
	// env is helm's cache, config and data folders, each in the test's temp
	// dir, so tests share nothing and leave nothing in the real HOME.
	env []string
	// dir is the folder charts are created in.
	dir string
}

// start runs a fresh miniapi whose simulated pods become ready after
// podReadyDelay, and a helm environment of its own.
func start(t *testing.T, podReadyDelay time.Duration) *cluster {
	t.Helper()
	c := &cluster{
		Server: harness.Start(t, "--pod-ready-delay="+podReadyDelay.String()),
		dir:    t.TempDir(),
	}
	for _, v := range []string{"HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"} {
		c.env = append(c.env, v+"="+t.TempDir())
	}
	// Helm's defaults, named so that nothing in the caller's environment
	// (HELM_DRIVER=memory, a namespace) changes what is tested.
	c.env = append(c.env, "HELM_DRIVER=", "HELM_NAMESPACE=")
	return c
}

// helm runs bin/helm with the server's kubeconfig; it never fails the test.
func (c *cluster) helm(t *testing.T, args ...string) harness.Result {
	t.Helper()
	return c.RunEnv("helm", c.env, args...)
}

// ok runs helm and fails the test unless it exits 0.
func (c *cluster) ok(t *testing.T, args ...string) harness.Result {
	t.Helper()
	res := c.helm(t, args...)
	if res.ExitCode != 0 {
		t.Fatalf("helm %s: %s", strings.Join(args, " "), res)
	}
	return res
}

// okJSON runs helm with -o json and decodes its stdout into v.
func (c *cluster) okJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	res := c.ok(t, append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(res.Stdout), v); err != nil {
		t.Fatalf("helm %s -o json: %v\n%s", strings.Join(args, " "), err, res)
	}
}

// writeFiles writes files (path relative to the chart folder → body).
func (c *cluster) writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(c.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// path is name inside the chart folder.
func (c *cluster) path(name string) string { return filepath.Join(c.dir, name) }

// eventually polls f every 100ms until it returns "" or the timeout passes,
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
		time.Sleep(100 * time.Millisecond)
	}
}
