package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is the bin/miniapi process under soak.
type server struct {
	dataDir, addr, logPath string
	cmd                    *exec.Cmd
	done                   chan error
	http                   *http.Client
}

// startServer runs bin at a free loopback port on a fresh data dir under
// workDir, with profiling on (the heap figure comes from /debug/pprof),
// and waits until it is ready.
func startServer(ctx context.Context, bin, workDir string, extraArgs ...string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	s := &server{dataDir: filepath.Join(workDir, "data"), addr: addr, logPath: filepath.Join(workDir, "miniapi.log"),
		http: &http.Client{Timeout: 10 * time.Second}}
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	args := append([]string{"--data-dir", s.dataDir, "--listen", addr, "--profiling", "--log-level", "warn"}, extraArgs...)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	s.done = make(chan error, 1)
	go func() { s.done <- s.cmd.Wait(); logf.Close() }()
	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *server) url() string { return "http://" + s.addr }

func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("miniapi exited before it was ready: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if b, err := s.get(ctx, "/readyz"); err == nil && string(b) == "ok" {
			return nil
		}
	}
	return fmt.Errorf("miniapi at %s not ready within %s", s.addr, timeout)
}

// stop sends SIGTERM, then SIGKILL after 30 s.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// exited reports whether the process has ended.
func (s *server) exited() error {
	select {
	case err := <-s.done:
		s.done <- err
		return fmt.Errorf("miniapi exited: %v", err)
	default:
		return nil
	}
}

func (s *server) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url()+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return b, err
}

// rssBytes reads VmRSS from /proc/PID/status.
func (s *server) rssBytes() (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc status")
}

// liveHeapBytes is the heap in use right after a garbage collection
// (/debug/pprof/heap?gc=1 collects first): the live heap, without the
// saw-tooth of garbage between two collections that heap_alloc shows.
func (s *server) liveHeapBytes(ctx context.Context) (float64, error) {
	b, err := s.get(ctx, "/debug/pprof/heap?debug=1&gc=1")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "# HeapAlloc = "); ok {
			return strconv.ParseFloat(strings.TrimSpace(rest), 64)
		}
	}
	return 0, fmt.Errorf("no HeapAlloc in the heap profile")
}

// metrics reads the named gauges from /metrics.
func (s *server) metrics(ctx context.Context, names ...string) (map[string]float64, error) {
	b, err := s.get(ctx, "/metrics")
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || !want[name] {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("/metrics has no %s", n)
		}
	}
	return out, nil
}

// dbFileBytes is the bbolt file's size.
func (s *server) dbFileBytes() (float64, error) {
	fi, err := os.Stat(filepath.Join(s.dataDir, "miniapi.db"))
	if err != nil {
		return 0, err
	}
	return float64(fi.Size()), nil
}
