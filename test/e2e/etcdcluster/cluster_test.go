// Package etcdcluster runs miniapi as a user who outgrew one machine
// would: three real etcd processes (bin/etcd, built by `make etcd` from
// go.etcd.io/etcd/server/v3) in one static cluster, and three bin/miniapi
// processes on it, each with its own data dir and port and every etcd
// member in its --etcd-servers. Each test starts its own cluster, since
// most of them kill a part of it.
package etcdcluster

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// Short leader-election durations, so that a killed leader is replaced
// within seconds (the defaults, kube-controller-manager's, take 15 s).
var leaseFlags = []string{
	"--leader-elect-lease-duration=3s",
	"--leader-elect-renew-deadline=2s",
	"--leader-elect-retry-period=500ms",
}

// cluster is three etcd members and three miniapi servers on them.
type cluster struct {
	etcd    []*member
	servers []*harness.Server
	clients []kubernetes.Interface
}

// startCluster starts the members, then the servers with extraArgs.
func startCluster(t *testing.T, extraArgs ...string) *cluster {
	t.Helper()
	c := &cluster{etcd: startEtcd(t, 3)}
	var urls []string
	for _, m := range c.etcd {
		urls = append(urls, m.clientURL)
	}
	args := append([]string{"--etcd-servers", strings.Join(urls, ",")}, leaseFlags...)
	// Started together, as an operator would: they race to seed the
	// store (system namespaces, the kubernetes Service and its ClusterIP).
	c.servers = harness.StartMany(t, 3, append(args, extraArgs...)...)
	for _, s := range c.servers {
		c.clients = append(c.clients, s.Client())
	}
	return c
}

// leaseHolder is the holderIdentity of the controllers' Lease, read
// through client, or "" if the Lease is not held (yet).
func leaseHolder(ctx context.Context, client kubernetes.Interface) (string, error) {
	lease, err := client.CoordinationV1().Leases("kube-system").Get(ctx, "miniapi-controllers", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", nil
	case err != nil:
		return "", err
	case lease.Spec.HolderIdentity == nil:
		return "", nil
	}
	return *lease.Spec.HolderIdentity, nil
}

// leader waits, reading through client, until the controllers' Lease is
// held by one of servers other than not, and returns that server's
// index and identity. A server's identity is random (<hostname>_<uuid>);
// it names it in its log when it starts leading.
func (c *cluster) leader(t *testing.T, client kubernetes.Interface, not string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var err error
	for ctx.Err() == nil {
		var holder string
		if holder, err = leaseHolder(ctx, client); holder != "" && holder != not {
			for i, s := range c.servers {
				if strings.Contains(s.Log(), "identity="+holder) {
					return i, holder
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no server took the controllers' Lease (other than %q) within 60 s (last error reading it: %v)", not, err)
	return 0, ""
}
