package main

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

// server is one bin/miniapi process on its own data dir.
type server struct {
	bin, dataDir, addr string
	args               []string
	cmd                *exec.Cmd
	done               chan error
	logPath            string
}

// newServer prepares a server on a fresh data dir under workDir and a free
// loopback port; start runs it. Profiling is always on so a workload that
// misses its target can be profiled.
func newServer(bin, workDir string, extraArgs ...string) (*server, error) {
	dir, err := os.MkdirTemp(workDir, "miniapi-")
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{bin: bin, dataDir: filepath.Join(dir, "data"), addr: addr, logPath: filepath.Join(dir, "miniapi.log")}
	s.args = append([]string{"--data-dir", s.dataDir, "--listen", addr, "--profiling", "--log-level", "warn"}, extraArgs...)
	return s, nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func (s *server) url() string { return "http://" + s.addr }

// start execs the server and returns the time from exec to the first
// /readyz answering 200 "ok".
func (s *server) start(ctx context.Context) (time.Duration, error) {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
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
		s.kill()
		return 0, err
	}
	return time.Since(t0), nil
}

// waitReady polls /readyz every millisecond: start times are the figure,
// so the poll interval must be small next to them.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.cmd = nil
			return fmt.Errorf("miniapi exited before it was ready (%v): %s", err, s.logTail())
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		resp, err := client.Get(s.url() + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && string(body) == "ok" {
				return nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("miniapi at %s not ready within %s: %s", s.addr, timeout, s.logTail())
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop() error {
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
		s.kill()
		return errors.New("miniapi did not exit within 30s of SIGTERM")
	}
}

func (s *server) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// close stops the server and removes its data dir.
func (s *server) close() {
	s.kill()
	_ = os.RemoveAll(filepath.Dir(s.dataDir))
}

// rssMiB reads VmRSS (all resident memory) from /proc/PID/status.
func (s *server) rssMiB() (float64, error) { return s.statusMiB("VmRSS:") }

// anonMiB reads RssAnon: resident memory that is not file-backed (heap,
// stacks), i.e. VmRSS without the binary's mapped pages and bbolt's mmap.
func (s *server) anonMiB() (float64, error) { return s.statusMiB("RssAnon:") }

func (s *server) statusMiB(field string) (float64, error) {
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

// dbBytes is the size of the bbolt file.
func (s *server) dbBytes() (int64, error) {
	fi, err := os.Stat(filepath.Join(s.dataDir, "miniapi.db"))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// cpuProfile fetches a CPU profile of the next d from /debug/pprof and
// saves it to path; run it in its own goroutine while a workload runs.
func (s *server) cpuProfile(ctx context.Context, d time.Duration, path string) error {
	return s.fetch(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", max(1, int(d.Seconds()))), path)
}

// heapProfile saves the current heap profile to path.
func (s *server) heapProfile(ctx context.Context, path string) error {
	return s.fetch(ctx, "/debug/pprof/heap?gc=1", path)
}

func (s *server) fetch(ctx context.Context, p, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url()+p, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", p, resp.Status)
	}
	return os.WriteFile(path, b, 0o644)
}

func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
