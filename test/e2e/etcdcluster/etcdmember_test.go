package etcdcluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestEtcdLeaderKilled: the etcd member that is the raft leader, the
// harder case (the two others must elect a new one, and every server's
// client must leave the dead member), is killed with SIGKILL. Writes
// through every server go on: while the members elect, a write may be
// refused with 503 or 504 (never another error, never a hang), and is
// retried as a client would; every write lands once, every server reads
// it at the same resourceVersion, and informers opened before the kill
// see every write, in order.
func TestEtcdLeaderKilled(t *testing.T) {
	c := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "default"
	var recs []*recorder
	for _, client := range c.clients {
		recs = append(recs, startInformer(t, configMapWatch(client, ns)))
	}
	var want []seen
	for i := range 3 {
		want = append(want, create(ctx, t, c.clients[i], ns, fmt.Sprintf("before-%d", i)))
	}

	victim := etcdLeader(t, etcdClient(t, c.etcd), c.etcd)
	victim.kill()
	t.Logf("killed etcd member %s, the leader", victim.name)

	for i := range 6 {
		want = append(want, create(ctx, t, c.clients[i%3], ns, fmt.Sprintf("after-%d", i)))
	}
	for i, client := range c.clients {
		for _, w := range want {
			got, err := client.CoreV1().ConfigMaps(ns).Get(ctx, w.name, metav1.GetOptions{})
			if err != nil || got.ResourceVersion != w.rv {
				t.Errorf("server %d reads %s: %v %v, want rv %s", i, w.name, got.ResourceVersion, err, w.rv)
			}
		}
	}
	for i, rec := range recs {
		waitFor(t, 30*time.Second, fmt.Sprintf("informer on server %d sees %d adds", i, len(want)),
			func() bool { return len(rec.snapshot()) >= len(want) })
		if got := rec.snapshot(); !slices.Equal(got, want) {
			t.Errorf("informer on server %d saw\n  %v\nwant\n  %v", i, got, want)
		}
	}
}

// create writes ConfigMap name through client, retrying while the
// server answers 503 or 504 (etcd has no leader, or did not answer in
// time). A retry that finds the ConfigMap already there means an earlier
// attempt's answer was lost but its write was not: it reads it back.
func create(ctx context.Context, t *testing.T, client kubernetes.Interface, ns, name string) seen {
	t.Helper()
	cms := client.CoreV1().ConfigMaps(ns)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}
	deadline := time.Now().Add(30 * time.Second)
	for retried := false; ; retried = true {
		attempt, cancel := context.WithTimeout(ctx, 15*time.Second)
		got, err := cms.Create(attempt, cm, metav1.CreateOptions{})
		cancel()
		switch {
		case err == nil:
			return seen{"ADDED", name, got.ResourceVersion}
		case retried && apierrors.IsAlreadyExists(err):
			if got, err = cms.Get(ctx, name, metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			return seen{"ADDED", name, got.ResourceVersion}
		case !apierrors.IsServiceUnavailable(err) && !apierrors.IsTimeout(err) && !apierrors.IsServerTimeout(err):
			t.Fatalf("creating %s: %v (%s), want success or a 503/504 Status", name, err, reason(err))
		case time.Now().After(deadline):
			t.Fatalf("creating %s: still %v after 30 s", name, err)
		}
		t.Logf("creating %s: %v; retrying", name, err)
		time.Sleep(100 * time.Millisecond)
	}
}

func reason(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		return fmt.Sprintf("%d %s", s.Code, s.Reason)
	}
	return "not a Status"
}
