package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func testConfig(t *testing.T) Config {
	cfg := Default()
	cfg.DataDir = t.TempDir()
	cfg.Listen = "127.0.0.1:0"
	cfg.UnsafeNoFsync = true
	cfg.PodReadyDelay = 0
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	return cfg
}

func clientFor(t *testing.T, s *Server) kubernetes.Interface {
	t.Helper()
	rc, err := s.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTwoServersInOneProcess: two servers run side by side in one
// process, each with its own port, store and controllers, and neither
// sees the other's objects. Stopping both leaves no goroutine behind.
func TestTwoServersInOneProcess(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx := context.Background()
	a, err := Start(ctx, testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Start(ctx, testConfig(t))
	if err != nil {
		_ = a.Stop()
		t.Fatal(err)
	}
	if a.URL() == b.URL() {
		t.Fatalf("both servers at %s", a.URL())
	}
	ca, cb := clientFor(t, a), clientFor(t, b)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "only-in-a"}}
	if _, err := ca.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cb.CoreV1().ConfigMaps("default").Get(ctx, "only-in-a", metav1.GetOptions{}); err == nil {
		t.Error("server b serves server a's ConfigMap")
	}
	// Each runs its own controllers: both make their simulated Nodes.
	for name, c := range map[string]kubernetes.Interface{"a": ca, "b": cb} {
		waitFor(t, "server "+name+"'s nodes", func() bool {
			nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			return err == nil && len(nodes.Items) == 3
		})
	}

	for _, s := range []*Server{a, b} {
		if err := s.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
		if err := s.Stop(); err != nil {
			t.Errorf("a second stop: %v", err)
		}
	}
	waitFor(t, "the servers' goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

// TestStartFailsCleanly: a start that cannot listen (the port is taken)
// returns the error and leaves the data dir's store closed, so a second
// server can open it.
func TestStartFailsCleanly(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg := testConfig(t)
	cfg.Listen = taken.Addr().String()
	if _, err := Start(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("start on a taken port: %v", err)
	}
	cfg.Listen = "127.0.0.1:0"
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("start on the same data dir after a failed start: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Error(err)
	}
}

// waitFor polls cond until it holds, failing the test after 10 s; on a
// goroutine count, the failure shows every goroutine left.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
