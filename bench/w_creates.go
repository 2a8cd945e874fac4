package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// creates measures durable pod creates through the API at each client
// count, next to raw bbolt batched puts of the same bytes from the same
// number of goroutines on the same disk (the ratio is the headline).
func creates(ctx context.Context, e *env) error {
	c, err := e.newCluster(ctx)
	if err != nil {
		return err
	}
	var namespaces []string
	defer func() { c.close(ctx, namespaces...) }()
	for _, clients := range e.sizes.CreateClients {
		ns, err := c.namespace(ctx, e.nsName(fmt.Sprintf("create-%d", clients)))
		if err != nil {
			return err
		}
		namespaces = append(namespaces, ns)
		n := e.sizes.CreatesPer(clients)
		var lat latencies
		stored := make([][]byte, n)
		var mu sync.Mutex
		wait := func() {}
		if clients == e.sizes.CreateClients[len(e.sizes.CreateClients)-1] {
			wait = e.profileDuring(ctx, c, "creates")
		}
		took, err := parallel(ctx, 0, n, clients, func(ctx context.Context, i int) error {
			t0 := time.Now()
			p, err := c.cs.CoreV1().Pods(ns).Create(ctx, benchPod(ns, i), metav1.CreateOptions{})
			if err != nil {
				return err
			}
			lat.add(time.Since(t0))
			mu.Lock()
			stored[i] = podBytes(p)
			mu.Unlock()
			return nil
		})
		wait()
		if err != nil {
			return err
		}
		rate := float64(n) / took.Seconds()
		key := fmt.Sprintf("creates.c%d", clients)
		f := e.add("durable creates", key+".rate", fmt.Sprintf("pods/s, %d clients", clients), rate, "/s")
		if c.own() {
			raw, name, err := rawPuts(ctx, e, c, ns, stored, clients)
			if err != nil {
				return err
			}
			f.vs(name, raw)
			if clients >= 64 {
				f.ratioAtLeast(0.5, "≥ 50 % of raw at 64")
			}
		}
		e.add("durable creates", key+".p50_ms", fmt.Sprintf("p50 create, %d clients", clients), lat.percentile(50), "ms")
		e.add("durable creates", key+".p99_ms", fmt.Sprintf("p99 create, %d clients", clients), lat.percentile(99), "ms")
	}
	if !c.own() {
		e.skip("raw bbolt baseline: needs miniapi's disk")
	}
	return nil
}

// rawPuts is the baseline of the cluster's store: raw bbolt batched puts
// on the same disk, or raw etcd client puts into the same etcd.
func rawPuts(ctx context.Context, e *env, c *cluster, ns string, values [][]byte, clients int) (float64, string, error) {
	if c.etcd != nil {
		rate, err := rawEtcdPuts(ctx, c.etcd.url, ns, values, clients)
		return rate, "raw etcd client puts", err
	}
	rate, err := rawBoltPuts(ctx, e.opts.WorkDir, ns, values, clients)
	return rate, "raw bbolt db.Batch", err
}

// podBytes is the pod as JSON, about what the server stores for it.
func podBytes(p *corev1.Pod) []byte {
	b, _ := json.Marshal(p)
	return b
}
