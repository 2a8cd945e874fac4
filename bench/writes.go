package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// writeCounts is a snapshot of the server's successful writes: the
// apiserver_request_total counters of mutating verbs with a 2xx code, by
// "verb resource[/subresource]", and the store's revision. Every committed
// write moves the revision by exactly one, so its delta is the exact count
// of writes; the request counters say which requests they were (a request
// that changed nothing answers 200 without a new revision, so their sum
// can exceed the revision delta, never fall short of it).
type writeCounts struct {
	byRequest map[string]float64
	// conflicts are the write requests refused with 409 Conflict: no
	// commit, but a request served (and a reconcile pass to redo).
	conflicts float64
	revision  float64
}

var mutatingVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

// scrapeWrites reads /metrics through the cluster's client, so a
// --kubeconfig server with the same metrics works as well.
func scrapeWrites(ctx context.Context, c *cluster) (writeCounts, error) {
	raw, err := c.cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return writeCounts{}, fmt.Errorf("reading /metrics: %w", err)
	}
	return parseWrites(raw), nil
}

func parseWrites(raw []byte) writeCounts {
	w := writeCounts{byRequest: map[string]float64{}}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "miniapi_storage_revision "); ok {
			w.revision, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			continue
		}
		rest, ok := strings.CutPrefix(line, "apiserver_request_total{")
		if !ok {
			continue
		}
		labelText, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		l := promLabels(labelText)
		if !mutatingVerbs[l["verb"]] {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		if l["code"] == "409" && l["verb"] != "create" {
			w.conflicts += n
		}
		if !strings.HasPrefix(l["code"], "2") {
			continue
		}
		w.byRequest[l["verb"]+" "+l["resource"]] += n
	}
	return w
}

// promLabels parses `a="x",b="y"` (label values here never hold quotes or
// commas).
func promLabels(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			m[k] = strings.Trim(v, `"`)
		}
	}
	return m
}

// since is what happened between an earlier snapshot and w.
func (w writeCounts) since(before writeCounts) writeCounts {
	d := writeCounts{byRequest: map[string]float64{}, revision: w.revision - before.revision, conflicts: w.conflicts - before.conflicts}
	for k, v := range w.byRequest {
		if n := v - before.byRequest[k]; n > 0 {
			d.byRequest[k] = n
		}
	}
	return d
}

// requests is the sum of the successful write requests.
func (w writeCounts) requests() float64 {
	var n float64
	for _, v := range w.byRequest {
		n += v
	}
	return n
}

// keys lists the requests seen, most frequent first.
func (w writeCounts) keys() []string {
	ks := make([]string, 0, len(w.byRequest))
	for k := range w.byRequest {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b string) int {
		if w.byRequest[a] != w.byRequest[b] {
			if w.byRequest[a] > w.byRequest[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return ks
}

// perDeployment says whether a request's writes are counted per
// Deployment (the Deployment's and its ReplicaSet's own) rather than per
// pod (pods, their status, bindings, and the events, which are mostly
// about pods).
func perDeployment(request string) bool {
	_, res, _ := strings.Cut(request, " ")
	kind, _, _ := strings.Cut(res, "/")
	return kind == "deployments" || kind == "replicasets"
}
