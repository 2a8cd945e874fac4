package etcdstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/etcd"
)

// TestEtcdDownFailsInBoundedTime: once etcd is gone, a write fails within
// the request timeout with an error the API turns into 503/504, and Open
// on an address nobody serves fails within the dial timeout.
func TestEtcdDownFailsInBoundedTime(t *testing.T) {
	endpoint, stop := startEtcd(t, t.TempDir())
	s, err := etcd.Open(t.Context(), etcd.Options{Endpoints: []string{endpoint}, RequestTimeout: time.Second})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Create(t.Context(), "/down/a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	stop()

	started := time.Now()
	_, err = s.Create(t.Context(), "/down/b", []byte("x"))
	if !errors.Is(err, storage.ErrTimeout) && !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("Create with etcd down: %v, want ErrTimeout or ErrUnavailable", err)
	}
	if took := time.Since(started); took > 5*time.Second {
		t.Fatalf("Create with etcd down took %v, want about the 1 s request timeout", took)
	}

	started = time.Now()
	_, err = etcd.Open(context.Background(), etcd.Options{Endpoints: []string{endpoint}, DialTimeout: time.Second})
	if err == nil {
		t.Fatal("Open succeeded with etcd down")
	}
	if took := time.Since(started); took > 5*time.Second {
		t.Fatalf("Open with etcd down took %v", took)
	}
}
