package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/bench/internal/miniproc"
)

// etcdServer is one bin/etcd member on a fresh data dir and free loopback
// ports.
type etcdServer struct {
	cmd  *exec.Cmd
	done chan error
	url  string // the client URL
}

// startEtcd runs a one-member etcd under workDir and waits for its
// /health to answer.
func startEtcd(ctx context.Context, bin, workDir string) (*etcdServer, error) {
	dir, err := os.MkdirTemp(workDir, "etcd-")
	if err != nil {
		return nil, err
	}
	client, err := miniproc.FreeAddr()
	if err != nil {
		return nil, err
	}
	peer, err := miniproc.FreeAddr()
	if err != nil {
		return nil, err
	}
	s := &etcdServer{url: "http://" + client, done: make(chan error, 1)}
	s.cmd = exec.Command(bin, "--name", "bench", "--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", s.url, "--advertise-client-urls", s.url,
		"--listen-peer-urls", "http://"+peer, "--initial-advertise-peer-urls", "http://"+peer,
		"--initial-cluster", "bench=http://"+peer, "--log-level", "error")
	logf, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		return nil, err
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() { s.done <- s.cmd.Wait(); logf.Close() }()
	if err := s.waitHealthy(ctx, 30*time.Second); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *etcdServer) waitHealthy(ctx context.Context, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.cmd = nil
			return fmt.Errorf("etcd exited before it was healthy: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if resp, err := client.Get(s.url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("etcd at %s not healthy within %s", s.url, timeout)
}

// close stops etcd; its data goes with the run's work dir.
func (s *etcdServer) close() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// rawEtcdPuts is the durable-write baseline on etcd: the same values put
// with the etcd client (as etcdctl put does), from the same number of
// goroutines, into the etcd that miniapi uses. It returns puts per second.
func rawEtcdPuts(ctx context.Context, endpoint, prefix string, values [][]byte, clients int) (float64, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	took, err := parallel(ctx, 0, len(values), clients, func(ctx context.Context, i int) error {
		_, err := cli.Put(ctx, fmt.Sprintf("/raw/%s/pod-%07d", prefix, i), string(values[i]))
		return err
	})
	if err != nil {
		return 0, err
	}
	return float64(len(values)) / took.Seconds(), nil
}
