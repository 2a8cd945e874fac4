package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"
)

// env is what every workload gets: the run's options, sizes and results,
// and a way to get a cluster to measure.
type env struct {
	opts  options
	sizes sizes
	res   *results
	log   *slog.Logger
	runID string // prefix of namespaces, unique per run
	// variant is "" for miniapi as it starts by default, or a second run
	// of a workload on another setup (variants.go).
	variant variant
}

// cluster is the API server a workload drives: a fresh bin/miniapi
// (srv != nil), or the --kubeconfig server (srv == nil).
type cluster struct {
	srv *server
	cfg *rest.Config
	cs  kubernetes.Interface
	// started is the time from exec to ready (miniapi only).
	started time.Duration
	// etcd is the store of a miniapi on etcd (nil on bbolt).
	etcd *etcdServer
}

// own reports whether the workload may measure the server's process.
func (c *cluster) own() bool { return c.srv != nil }

// newCluster starts a fresh miniapi with extraArgs, or connects to the
// --kubeconfig server (extraArgs then do not apply).
func (e *env) newCluster(ctx context.Context, extraArgs ...string) (*cluster, error) {
	if e.opts.Kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", e.opts.Kubeconfig)
		if err != nil {
			return nil, err
		}
		return newClusterFor(nil, tune(cfg))
	}
	var etcd *etcdServer
	extraArgs = append(extraArgs, e.variant.serverArgs...)
	if e.variant.etcd {
		var err error
		if etcd, err = startEtcd(ctx, e.opts.Etcd, e.opts.WorkDir); err != nil {
			return nil, err
		}
		extraArgs = append(extraArgs, "--etcd-servers", etcd.url)
	}
	c, err := e.startMiniapi(ctx, extraArgs)
	if err != nil {
		if etcd != nil {
			etcd.close()
		}
		return nil, err
	}
	c.etcd = etcd
	return c, nil
}

func (e *env) startMiniapi(ctx context.Context, args []string) (*cluster, error) {
	srv, err := newServer(e.miniapiBin(), e.opts.WorkDir, args...)
	if err != nil {
		return nil, err
	}
	took, err := srv.Start(ctx)
	if err != nil {
		srv.Close()
		return nil, err
	}
	cfg := tune(&rest.Config{Host: srv.URL()})
	cfg.Transport = loopbackTransport()
	c, err := newClusterFor(srv, cfg)
	if err != nil {
		srv.Close()
		return nil, err
	}
	c.started = took
	return c, nil
}

func newClusterFor(srv *server, cfg *rest.Config) (*cluster, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := parkNode(ctx, cs); err != nil {
		return nil, fmt.Errorf("registering node %s: %w", parkedNode, err)
	}
	return &cluster{srv: srv, cfg: cfg, cs: cs}, nil
}

// tune makes client-go send protobuf, as its typed clients do against
// kube-apiserver, and lifts its client-side rate limit: the server is what
// is measured. No client timeout: it would cut long watches; every call
// has a context instead.
func tune(cfg *rest.Config) *rest.Config {
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	cfg.UserAgent = "miniapi-bench"
	return cfg
}

// loopbackTransport keeps enough idle connections for every concurrent
// client and watcher, so none pays a new TCP handshake per request.
func loopbackTransport() *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        4096,
		MaxIdleConnsPerHost: 4096,
		IdleConnTimeout:     90 * time.Second,
	}
}

// close stops a miniapi cluster and removes its data; on a --kubeconfig
// server it deletes the namespaces the workload made.
func (c *cluster) close(ctx context.Context, namespaces ...string) {
	if c.srv != nil {
		c.srv.Close()
		if c.etcd != nil {
			c.etcd.close()
		}
		return
	}
	for _, ns := range namespaces {
		_ = c.cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	}
}

// namespace creates ns (unique to this run) and returns its name.
func (c *cluster) namespace(ctx context.Context, name string) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := c.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		err = nil
	}
	return name, err
}

// nsName is a namespace name unique to this run.
func (e *env) nsName(suffix string) string { return e.runID + "-" + suffix }

func newRunID() string {
	return fmt.Sprintf("bench-%x", time.Now().UnixNano()&0xffffff^int64(os.Getpid()))
}
