package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// watchLatency measures, at each watcher count, the time from a create's
// acknowledgement (its response read by the writer) to its ADDED event
// read by each watcher, while pods are written at WatchRate per second.
// An event can reach a watcher before the writer has read its response;
// such deliveries count as 0 ms.
func watchLatency(ctx context.Context, e *env) error {
	c, err := e.newCluster(ctx)
	if err != nil {
		return err
	}
	var namespaces []string
	defer func() { c.close(ctx, namespaces...) }()
	var p50s, p99s, xs []float64
	for i, w := range e.sizes.Watchers {
		ns, err := c.namespace(ctx, e.nsName(fmt.Sprintf("watch-%d", w)))
		if err != nil {
			return err
		}
		namespaces = append(namespaces, ns)
		wait := func() {}
		if i == len(e.sizes.Watchers)-1 {
			wait = e.profileDuring(ctx, c, "watch")
		}
		r, err := watchRound(ctx, e, c, ns, w)
		wait()
		if err != nil {
			return err
		}
		lat, missed := r.lat, r.missed
		writes := max(1, int(float64(e.sizes.WatchRate)*e.sizes.WatchFor.Seconds()))
		base, baseMissed, err := fanoutBaseline(ctx, w, writes, e.sizes.WatchRate, r.eventSize)
		if err != nil {
			return err
		}
		key := fmt.Sprintf("watch.w%d", w)
		if c.own() {
			e.vsDefault(e.add("watch", key+".cpu_ms_per_event", fmt.Sprintf("server CPU per write and its delivery to %s watchers", groupThousands(int64(w))),
				1000*r.cpuSeconds/float64(writes), "ms"), key+".cpu_ms_per_event")
		}
		e.vsDefault(e.add("watch", key+".p50_ms", fmt.Sprintf("p50 write ack → event, %s watchers", groupThousands(int64(w))), lat.percentile(50), "ms"), key+".p50_ms")
		e.add("watch", key+".baseline.p99_ms", fmt.Sprintf("p99 plain net/http fan-out of %d-byte lines, %s readers", r.eventSize, groupThousands(int64(w))), base.percentile(99), "ms")
		f := e.add("watch", key+".p99_ms", fmt.Sprintf("p99 write ack → event, %s watchers", groupThousands(int64(w))), lat.percentile(99), "ms").
			vs("plain net/http fan-out, same run", base.percentile(99))
		if w == 1000 {
			f.atMost(2*base.percentile(99), "≤ 2× the plain fan-out at 1,000")
		}
		e.vsDefault(f, key+".p99_ms")
		if baseMissed > 0 {
			e.res.Notes = append(e.res.Notes, fmt.Sprintf("watch baseline: %d of %d deliveries missing at %d readers", baseMissed, base.count()+baseMissed, w))
		}
		if missed > 0 {
			e.res.Notes = append(e.res.Notes, fmt.Sprintf("watch: %d of %d deliveries missing at %d watchers (watch ended early or too slow)", missed, lat.count()+missed, w))
		}
		xs, p50s, p99s = append(xs, float64(w)), append(p50s, lat.percentile(50)), append(p99s, lat.percentile(99))
	}
	name := "watch" + e.variant.suffix()
	e.res.Series = append(e.res.Series,
		series{Name: name + " p50", XLabel: "watchers", YLabel: "ms, write ack → event", X: xs, Y: p50s},
		series{Name: name + " p99", XLabel: "watchers", YLabel: "ms, write ack → event", X: xs, Y: p99s})
	return nil
}

// watchResult is what one round of watchRound measured.
type watchResult struct {
	lat *latencies
	// missed counts deliveries that never came.
	missed int
	// eventSize is the mean bytes per event one watcher read.
	eventSize int
	// cpuSeconds is the server's CPU time from the first write until
	// every event was delivered (the bench's own server only).
	cpuSeconds float64
}

// watchRound opens watchers watches on ns, writes to it at the profile's
// rate and collects every delivery's latency.
func watchRound(ctx context.Context, e *env, c *cluster, ns string, watchers int) (watchResult, error) {
	list, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return watchResult{}, err
	}
	writes := max(1, int(float64(e.sizes.WatchRate)*e.sizes.WatchFor.Seconds()))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recv := make([][]atomic.Int64, watchers)
	var established, readers sync.WaitGroup
	var openErr atomic.Value
	var firstReaderBytes atomic.Int64
	for w := range watchers {
		recv[w] = make([]atomic.Int64, writes)
		established.Add(1)
		readers.Go(func() {
			stream, err := c.cs.CoreV1().RESTClient().Get().Namespace(ns).Resource("pods").
				Param("watch", "true").Param("resourceVersion", list.ResourceVersion).
				SetHeader("Accept", "application/json").Stream(wctx)
			established.Done()
			if err != nil {
				openErr.Store(err)
				return
			}
			defer stream.Close()
			if w == 0 {
				readCreated(&countingReader{r: stream, n: &firstReaderBytes}, recv[w])
				return
			}
			readCreated(stream, recv[w])
		})
	}
	established.Wait()
	e.log.Debug("watches open", "watchers", watchers)
	if err, ok := openErr.Load().(error); ok {
		return watchResult{}, fmt.Errorf("opening a watch: %w", err)
	}
	cpu0 := serverCPU(c)
	// No pause before writing: Stream returns once the headers came, which
	// miniapi sends after registering the watch, and each watch starts at
	// the list's resourceVersion, so no write can be missed.

	ack, err := pacedCreates(ctx, c, ns, writes, e.sizes.WatchRate)
	if err != nil {
		return watchResult{}, err
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !allReceived(recv) {
		time.Sleep(20 * time.Millisecond)
	}
	r := watchResult{lat: &latencies{}, cpuSeconds: serverCPU(c) - cpu0}
	e.log.Debug("writes done", "watchers", watchers, "complete", allReceived(recv))
	cancel()
	readers.Wait()

	for w := range recv {
		for i := range recv[w] {
			at := recv[w][i].Load()
			if at == 0 {
				r.missed++
				continue
			}
			r.lat.add(time.Duration(max(0, at-ack[i])))
		}
	}
	r.eventSize = int(firstReaderBytes.Load()) / writes
	return r, nil
}

// serverCPU is the bench's own server's CPU seconds so far, or 0.
func serverCPU(c *cluster) float64 {
	if !c.own() {
		return 0
	}
	s, err := c.srv.CPUSeconds()
	if err != nil {
		return 0
	}
	return s
}

// countingReader counts the bytes read through it, so the baseline can
// send events of the size miniapi sent.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// pacedCreates creates n pods at rate per second (32 writers share the
// schedule, so a slow fsync does not stall it) and returns each create's
// acknowledgement time in Unix nanoseconds.
func pacedCreates(ctx context.Context, c *cluster, ns string, n, rate int) ([]int64, error) {
	ack := make([]int64, n)
	start := time.Now()
	interval := time.Second / time.Duration(rate)
	_, err := parallel(ctx, 0, n, 32, func(ctx context.Context, i int) error {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		_, err := c.cs.CoreV1().Pods(ns).Create(ctx, benchPod(ns, i), metav1.CreateOptions{})
		ack[i] = time.Now().UnixNano()
		return err
	})
	return ack, err
}

func allReceived(recv [][]atomic.Int64) bool {
	for _, r := range recv {
		for i := range r {
			if r[i].Load() == 0 {
				return false
			}
		}
	}
	return true
}

// podMarker starts the name of a benchmark pod in a JSON watch event.
var podMarker = []byte(`"name":"pod-`)

const podDigits = 7

// readCreated reads a JSON watch stream and records, for each benchmark
// pod index, when its first event arrived. It scans for the pod's name
// instead of decoding the event, so a thousand watchers in this process
// cost little next to the server they measure.
func readCreated(r io.Reader, at []atomic.Int64) {
	buf := make([]byte, 64<<10)
	have := 0
	keep := len(podMarker) + podDigits
	for {
		n, err := r.Read(buf[have:])
		now := time.Now().UnixNano()
		data := buf[:have+n]
		off := 0
		for {
			j := bytes.Index(data[off:], podMarker)
			if j < 0 || off+j+keep > len(data) {
				break
			}
			start := off + j + len(podMarker)
			if idx, ok := atoiDigits(data[start : start+podDigits]); ok && idx < len(at) {
				at[idx].CompareAndSwap(0, now)
			}
			off = start + podDigits
		}
		// keep a tail that may hold a marker cut in two
		tail := max(off, len(data)-keep)
		have = copy(buf, data[tail:])
		if err != nil {
			return
		}
	}
}

func atoiDigits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
