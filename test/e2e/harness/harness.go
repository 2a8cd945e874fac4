// Package harness starts the real bin/miniapi for end-to-end tests and runs
// the real command-line tools (bin/minictl, bin/kubectl, bin/helm) against it.
//
// The binaries are built by `make build`, `make kubectl` and `make helm`; a
// test that cannot find one fails with a message that says so.
package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RepoRoot is the product repository's top folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Binary returns the path of bin/<name>, failing the test if it is missing.
func Binary(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(), "bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run `make build kubectl helm etcd` first (%v)", p, err)
	}
	return p
}

// Server is a running bin/miniapi.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string
	// Addr is HOST:PORT.
	Addr string
	// DataDir is the --data-dir; it outlives restarts.
	DataDir string
	// Kubeconfig is the kubeconfig the server wrote into DataDir.
	Kubeconfig string

	t       testing.TB
	args    []string
	cmd     *exec.Cmd
	logPath string
	done    chan error
}

// Start runs bin/miniapi on a free loopback port with a fresh data dir and
// waits until /readyz answers ok. extraArgs are added to the command line
// (for example "--pod-ready-delay=0"). The server is stopped when the test
// ends, and its log is printed if the test failed.
func Start(t testing.TB, extraArgs ...string) *Server {
	t.Helper()
	return start(t, "http", extraArgs)
}

// start runs the server with scheme's URL (https needs the TLS flags in
// extraArgs). The first start listens on port 0, so the kernel picks a port
// no other process holds (choosing a free port and passing it on races
// with every other test binary); restarts keep the port the server got.
func start(t testing.TB, scheme string, extraArgs []string) *Server {
	t.Helper()
	s := launchNew(t, extraArgs)
	s.finishStart(scheme, extraArgs)
	return s
}

// StartMany runs n servers with the same flags at once, as several
// servers on one etcd are started together, and waits until every one
// is ready. Each has its own data dir and port, as with Start.
func StartMany(t testing.TB, n int, extraArgs ...string) []*Server {
	t.Helper()
	servers := make([]*Server, n)
	for i := range servers {
		servers[i] = launchNew(t, extraArgs)
	}
	for _, s := range servers {
		s.finishStart("http", extraArgs)
	}
	return servers
}

// launchNew starts a server on port 0 with a fresh data dir, without
// waiting for it.
func launchNew(t testing.TB, extraArgs []string) *Server {
	t.Helper()
	dir := t.TempDir()
	s := &Server{
		t:       t,
		DataDir: filepath.Join(dir, "data"),
		logPath: filepath.Join(dir, "miniapi.log"),
	}
	s.Kubeconfig = filepath.Join(s.DataDir, "kubeconfig")
	t.Cleanup(func() {
		if s.cmd != nil {
			s.Kill()
		}
		if t.Failed() {
			s.dumpLog()
		}
	})
	s.launch(append([]string{"--data-dir", s.DataDir, "--listen", "127.0.0.1:0"}, extraArgs...))
	return s
}

// finishStart waits for the kubeconfig the server writes once it
// listens, learns its address from it, and waits until it is ready.
func (s *Server) finishStart(scheme string, extraArgs []string) {
	t := s.t
	t.Helper()
	s.URL = s.waitKubeconfigServer(20 * time.Second)
	if !strings.HasPrefix(s.URL, scheme+"://") {
		t.Fatalf("miniapi serves %s, want %s", s.URL, scheme)
	}
	s.Addr = strings.TrimPrefix(s.URL, scheme+"://")
	s.args = append([]string{"--data-dir", s.DataDir, "--listen", s.Addr}, extraArgs...)
	s.waitReady(20 * time.Second)
}

// waitKubeconfigServer waits for the kubeconfig the server writes once it
// listens, and returns the server URL it names.
func (s *Server) waitKubeconfigServer(timeout time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		s.checkRunning()
		if kc, err := clientcmd.LoadFromFile(s.Kubeconfig); err == nil {
			if c := kc.Clusters["miniapi"]; c != nil && c.Server != "" {
				return c.Server
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.dumpLog()
	s.t.Fatalf("miniapi wrote no kubeconfig within %s", timeout)
	return ""
}

func (s *Server) start(args []string) {
	s.t.Helper()
	s.launch(args)
	s.waitReady(20 * time.Second)
}

// launch starts the process with its output appended to the log.
func (s *Server) launch(args []string) {
	s.t.Helper()
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.Command(Binary(s.t, "miniapi"), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting miniapi: %v", err)
	}
	s.cmd = cmd
	s.done = make(chan error, 1)
	go func() { s.done <- cmd.Wait(); logf.Close() }()
}

// checkRunning fails the test if the server has exited.
func (s *Server) checkRunning() {
	s.t.Helper()
	select {
	case err := <-s.done:
		s.cmd = nil
		s.dumpLog()
		s.t.Fatalf("miniapi exited before it was ready: %v", err)
	default:
	}
}

func (s *Server) waitReady(timeout time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		s.checkRunning()
		resp, err := probeClient.Get(s.URL + "/readyz")
		if err == nil {
			body := new(bytes.Buffer)
			_, _ = body.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && body.String() == "ok" {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.dumpLog()
	s.t.Fatalf("miniapi at %s was not ready within %s", s.URL, timeout)
}

// Stop sends SIGTERM and waits for the server to exit; it fails the test
// unless the exit status is 0, as the contract promises.
func (s *Server) Stop() {
	s.t.Helper()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		s.cmd = nil
		if err != nil {
			s.t.Fatalf("miniapi exited with %v after SIGTERM; want status 0", err)
		}
	case <-time.After(15 * time.Second):
		s.Kill()
		s.t.Fatalf("miniapi did not exit within 15s of SIGTERM")
	}
}

// Kill ends the server with SIGKILL, as a crash would.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Restart starts the server again on the same data dir and port, with the
// flags it was started with.
func (s *Server) Restart() {
	s.RestartWith()
}

// RestartWith starts the server again on the same data dir and port with
// extraArgs added to its start flags for this run only (a later flag wins,
// so "--nodes=2" overrides "--nodes=3"; "--controllers=false" serves the
// API with nothing reconciling). Restart goes back to the start flags.
func (s *Server) RestartWith(extraArgs ...string) {
	s.t.Helper()
	if s.cmd != nil {
		s.Stop()
	}
	s.start(append(slices.Clip(s.args), extraArgs...))
}

// Log is what the server has written to its log (stdout and stderr, over
// all its runs) so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

func (s *Server) dumpLog() {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 80 && os.Getenv("MINIAPI_FULL_LOG") == "" {
		lines = lines[len(lines)-80:]
	}
	s.t.Logf("last lines of the miniapi log:\n%s", strings.Join(lines, "\n"))
}

// Config is a client-go config for the server.
func (s *Server) Config() *rest.Config {
	return &rest.Config{Host: s.URL, QPS: 1000, Burst: 1000, TLSClientConfig: rest.TLSClientConfig{Insecure: strings.HasPrefix(s.URL, "https:")}}
}

// Client is a typed client-go clientset for the server.
func (s *Server) Client() kubernetes.Interface {
	s.t.Helper()
	c, err := kubernetes.NewForConfig(s.Config())
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// Result is what a command printed and how it exited.
type Result struct {
	Stdout, Stderr string
	ExitCode       int
}

// MustRun runs a tool as Run does, without stdin, and fails the test
// unless it exits 0.
func (s *Server) MustRun(t testing.TB, tool string, args ...string) Result {
	t.Helper()
	r := s.Run(tool, "", args...)
	if r.ExitCode != 0 {
		t.Fatalf("%s %v: %s", tool, args, r)
	}
	return r
}

// Run runs bin/<tool> (minictl or kubectl) against the server with args,
// with the kubeconfig the server wrote and a HOME of its own, and stdin as
// standard input (may be empty). It never fails the test by itself.
func (s *Server) Run(tool, stdin string, args ...string) Result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, Binary(s.t, tool), args...)
	home := filepath.Join(filepath.Dir(s.DataDir), "home-"+tool)
	_ = os.MkdirAll(home, 0o755)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig, "HOME="+home)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		s.t.Fatalf("running %s %v: %v", tool, args, err)
	}
	return res
}

// String renders a result for failure messages.
func (r Result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.ExitCode, r.Stdout, r.Stderr)
}
