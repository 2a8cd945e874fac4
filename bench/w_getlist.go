package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// getList times gets of single pods, unpaged JSON lists of whole
// namespaces (the kubectl get -o json case the anchor measured), and a
// list by label selector that picks a tenth of the largest namespace.
func getList(ctx context.Context, e *env) error {
	c, err := e.newCluster(ctx)
	if err != nil {
		return err
	}
	var namespaces []string
	defer func() { c.close(ctx, namespaces...) }()
	for _, n := range e.sizes.ListSizes {
		ns, err := c.namespace(ctx, e.nsName(fmt.Sprintf("list-%d", n)))
		if err != nil {
			return err
		}
		namespaces = append(namespaces, ns)
		if _, err := createPods(ctx, c.cs, ns, 0, n, e.sizes.FillClients, nil); err != nil {
			return err
		}
	}
	largest := e.sizes.ListSizes[len(e.sizes.ListSizes)-1]
	bigNS := namespaces[len(namespaces)-1]

	var get latencies
	for range e.sizes.Gets {
		name := benchPod(bigNS, rand.IntN(largest)).Name
		t0 := time.Now()
		if _, err := c.cs.CoreV1().Pods(bigNS).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return err
		}
		get.add(time.Since(t0))
	}
	e.vsDefault(e.add("get / list", "get.p50_ms", "p50 get pod", get.percentile(50), "ms"), "get.p50_ms")
	e.vsDefault(e.add("get / list", "get.p99_ms", "p99 get pod", get.percentile(99), "ms"), "get.p99_ms")

	var first float64
	for i, n := range e.sizes.ListSizes {
		wait := func() {}
		if i == len(e.sizes.ListSizes)-1 {
			wait = e.profileDuring(ctx, c, "list")
		}
		took, size, err := timeList(ctx, c, namespaces[i], "", e.sizes.ListRepeats)
		wait()
		if err != nil {
			return err
		}
		key := fmt.Sprintf("list.%d", n)
		f := e.add("get / list", key+".ms", fmt.Sprintf("unpaged list of %s pods, JSON %.1f MB (median)", groupThousands(int64(n)), float64(size)/1e6), took, "ms")
		if i == 0 {
			first = took
			if n == 1000 {
				f.atMost(30, "≤ 30 ms")
			}
		} else {
			f.vs(fmt.Sprintf("list of %s", groupThousands(int64(e.sizes.ListSizes[0]))), first)
		}
		e.vsDefault(f, key+".ms")
		e.add("get / list", key+".mbps", fmt.Sprintf("list of %s pods, throughput", groupThousands(int64(n))), float64(size)/1e6/(took/1000), "MB/s")
	}
	took, _, err := timeList(ctx, c, bigNS, "shard=3", e.sizes.ListRepeats)
	if err != nil {
		return err
	}
	e.vsDefault(e.add("get / list", "list.selector.ms", fmt.Sprintf("list shard=3 (1/%d of %s pods, median)", shards, groupThousands(int64(largest))), took, "ms").
		vs("unfiltered list of them all", mustFigure(e, fmt.Sprintf("list.%d.ms", largest))), "list.selector.ms")
	return nil
}

// timeList lists ns unpaged as JSON repeats times and returns the median
// milliseconds and the response size in bytes.
func timeList(ctx context.Context, c *cluster, ns, selector string, repeats int) (float64, int, error) {
	var took []time.Duration
	size := 0
	for range max(1, repeats) {
		req := c.cs.CoreV1().RESTClient().Get().Namespace(ns).Resource("pods").SetHeader("Accept", "application/json")
		if selector != "" {
			req = req.Param("labelSelector", selector)
		}
		t0 := time.Now()
		body, err := req.DoRaw(ctx)
		if err != nil {
			return 0, 0, err
		}
		took = append(took, time.Since(t0))
		size = len(body)
	}
	return ms(median(took)), size, nil
}

func mustFigure(e *env, key string) float64 {
	f, _ := e.res.lookup(e.variant.prefix(key))
	return f.Value
}
