package etcdcluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// member is one bin/etcd process of a static cluster.
type member struct {
	name      string
	clientURL string
	peerURL   string
	dataDir   string
	logPath   string
	t         testing.TB
	cmd       *exec.Cmd
	done      chan error
}

// startEtcd runs an n-member etcd cluster of bin/etcd processes on
// loopback, bootstrapped statically (--initial-cluster), and waits until
// every member reports healthy (which needs an elected leader). The
// members are killed when the test ends, and their logs printed if it
// failed.
func startEtcd(t testing.TB, n int) []*member {
	t.Helper()
	dir := t.TempDir()
	members := make([]*member, n)
	var initial []string
	for i := range members {
		m := &member{
			t: t, name: fmt.Sprintf("m%d", i),
			// etcd needs every peer URL before any member listens (the
			// cluster configuration names them), so port 0 does not do.
			clientURL: freeURL(t), peerURL: freeURL(t),
			dataDir: filepath.Join(dir, fmt.Sprintf("m%d", i)),
			logPath: filepath.Join(dir, fmt.Sprintf("m%d.log", i)),
		}
		members[i] = m
		initial = append(initial, m.name+"="+m.peerURL)
		t.Cleanup(func() {
			m.kill()
			if t.Failed() {
				m.dumpLog()
			}
		})
	}
	for _, m := range members {
		m.launch(strings.Join(initial, ","))
	}
	for _, m := range members {
		m.waitHealthy(30 * time.Second)
	}
	return members
}

// launch starts the member's process with its output in its log.
func (m *member) launch(initialCluster string) {
	m.t.Helper()
	logf, err := os.OpenFile(m.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		m.t.Fatal(err)
	}
	m.cmd = exec.Command(harness.Binary(m.t, "etcd"),
		"--name", m.name, "--data-dir", m.dataDir,
		"--listen-client-urls", m.clientURL, "--advertise-client-urls", m.clientURL,
		"--listen-peer-urls", m.peerURL, "--initial-advertise-peer-urls", m.peerURL,
		"--initial-cluster", initialCluster, "--initial-cluster-state", "new",
		"--initial-cluster-token", "miniapi-e2e",
		// The data dirs are throwaway; fsync would only slow the test.
		"--unsafe-no-fsync", "--log-level", "warn")
	m.cmd.Stdout, m.cmd.Stderr = logf, logf
	if err := m.cmd.Start(); err != nil {
		m.t.Fatalf("starting etcd %s: %v", m.name, err)
	}
	m.done = make(chan error, 1)
	go func() { m.done <- m.cmd.Wait(); logf.Close() }()
}

// waitHealthy waits for the member's /health to say true: it is up and
// the cluster has a leader.
func (m *member) waitHealthy(timeout time.Duration) {
	m.t.Helper()
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-m.done:
			m.cmd = nil
			m.dumpLog()
			m.t.Fatalf("etcd %s exited before it was healthy: %v", m.name, err)
		default:
		}
		resp, err := client.Get(m.clientURL + "/health")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"health":"true"`) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	m.dumpLog()
	m.t.Fatalf("etcd %s was not healthy within %s", m.name, timeout)
}

// kill ends the member with SIGKILL, as a crash would.
func (m *member) kill() {
	if m.cmd == nil {
		return
	}
	_ = m.cmd.Process.Kill()
	<-m.done
	m.cmd = nil
}

func (m *member) dumpLog() {
	if b, err := os.ReadFile(m.logPath); err == nil && len(b) > 0 {
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		lines = lines[max(0, len(lines)-40):]
		m.t.Logf("last lines of etcd %s's log:\n%s", m.name, strings.Join(lines, "\n"))
	}
}

// etcdClient is an etcd v3 client on the members' client URLs, closed
// when the test ends.
func etcdClient(t testing.TB, members []*member) *clientv3.Client {
	t.Helper()
	var endpoints []string
	for _, m := range members {
		endpoints = append(endpoints, m.clientURL)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// etcdLeader is the member that is the raft leader, as the members
// themselves report it.
func etcdLeader(t testing.TB, c *clientv3.Client, members []*member) *member {
	t.Helper()
	for _, m := range members {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := c.Status(ctx, m.clientURL)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return m
		}
	}
	t.Fatal("no etcd member says it is the leader")
	return nil
}

// freeURL is a loopback URL on a port that was free a moment ago.
func freeURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}
