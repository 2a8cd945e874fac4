// Package miniproc runs bin/miniapi as a separate process for the
// benchmarks and the soak: on a fresh data dir and a free loopback port,
// with profiling on, and reads what only the process can tell (its RSS,
// its database file).
package miniproc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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

// Server is one bin/miniapi process on its own data dir.
type Server struct {
	DataDir, Addr, LogPath string

	bin  string
	args []string
	cmd  *exec.Cmd
	done chan error
	http *http.Client
}

// New prepares a server on a fresh data dir under workDir and a free
// loopback port; Start runs it. Profiling is always on: the heap figures
// come from /debug/pprof, and a workload that misses its target can be
// profiled.
func New(bin, workDir string, extraArgs ...string) (*Server, error) {
	dir, err := os.MkdirTemp(workDir, "miniapi-")
	if err != nil {
		return nil, err
	}
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, DataDir: filepath.Join(dir, "data"), Addr: addr, LogPath: filepath.Join(dir, "miniapi.log"),
		http: &http.Client{Timeout: 10 * time.Second}}
	s.args = append([]string{"--data-dir", s.DataDir, "--listen", addr, "--profiling", "--log-level", "warn"}, extraArgs...)
	return s, nil
}

// FreeAddr is a loopback address no one listens on now.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// URL is the server's base URL.
func (s *Server) URL() string { return "http://" + s.Addr }

// Start execs the server and returns the time from exec to the first
// /readyz answering 200 "ok".
func (s *Server) Start(ctx context.Context) (time.Duration, error) {
	logf, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(s.bin, s.args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return 0, fmt.Errorf("starting %s: %w", s.bin, err)
	}
	s.cmd, s.done = cmd, make(chan error, 1)
	go func() { s.done <- cmd.Wait(); logf.Close() }()
	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		s.Kill()
		return 0, err
	}
	return time.Since(t0), nil
}

// waitReady polls /readyz every millisecond: start times are a figure,
// so the poll interval must be small next to them.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if err := s.Exited(); err != nil {
			return fmt.Errorf("%w before it was ready: %s", err, s.LogTail())
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		resp, err := client.Get(s.URL() + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && string(body) == "ok" {
				return nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("miniapi at %s not ready within %s: %s", s.Addr, timeout, s.LogTail())
}

// Exited is nil while the process runs, and says how it ended after.
func (s *Server) Exited() error {
	if s.cmd == nil {
		return errors.New("miniapi is not running")
	}
	select {
	case err := <-s.done:
		s.done <- err
		return fmt.Errorf("miniapi exited (%v)", err)
	default:
		return nil
	}
}

// Stop sends SIGTERM and waits for a clean exit (SIGKILL after 30 s).
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		s.cmd = nil
		if err != nil {
			return fmt.Errorf("miniapi exited with %v after SIGTERM", err)
		}
		return nil
	case <-time.After(30 * time.Second):
		s.Kill()
		return errors.New("miniapi did not exit within 30s of SIGTERM")
	}
}

// Kill ends the process at once.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Close kills the server and removes its data dir.
func (s *Server) Close() {
	s.Kill()
	_ = os.RemoveAll(filepath.Dir(s.DataDir))
}

// CPUSeconds reads the user and system CPU time the server has used so
// far (utime and stime in /proc/PID/stat, in clock ticks of 1/100 s, the
// value Linux gives user space).
func (s *Server) CPUSeconds() (float64, error) {
	if s.cmd == nil {
		return 0, errors.New("server not running")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is the first, utime the 12th, stime the 13th.
	_, rest, _ := bytes.Cut(b, []byte(") "))
	f := strings.Fields(string(rest))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat: %q", b)
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100, errors.Join(err1, err2)
}

// RSSMiB reads VmRSS (all resident memory) from /proc/PID/status.
func (s *Server) RSSMiB() (float64, error) { return s.statusMiB("VmRSS:") }

// AnonMiB reads RssAnon: resident memory that is not file-backed (heap,
// stacks), i.e. VmRSS without the binary's mapped pages and bbolt's mmap.
func (s *Server) AnonMiB() (float64, error) { return s.statusMiB("RssAnon:") }

func (s *Server) statusMiB(field string) (float64, error) {
	if s.cmd == nil {
		return 0, errors.New("server not running")
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc status", field)
}

// DBBytes is the size of the bbolt file.
func (s *Server) DBBytes() (int64, error) {
	fi, err := os.Stat(filepath.Join(s.DataDir, "miniapi.db"))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Get answers GET path (a 200's body; an error for any other status).
func (s *Server) Get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+path, nil)
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

// LogTail is the last ten lines of the server's log.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(s.LogPath)
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
