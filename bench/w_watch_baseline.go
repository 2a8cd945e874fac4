package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// fanoutBaseline is what the watch figures are measured against: a plain
// net/http server, in a process of its own as miniapi is, that sends
// lines of eventSize bytes in the shape of a watch event to readers
// streaming readers at the same rate, with nothing between the "write"
// and the sockets but a queue per reader, whose lines go out in one write
// and one flush for all that is queued (as miniapi writes them). Its latency is what a fan-out of the
// same bytes costs on this machine at this moment; the gap to it is
// miniapi's own.
func fanoutBaseline(ctx context.Context, readers, writes, rate, eventSize int) (*latencies, int, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, 0, err
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := exec.CommandContext(sctx, self, fanoutServerArg)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("starting the fan-out baseline: %w", err)
	}
	defer func() { stop(); _ = cmd.Wait() }()
	addr, err := firstLine(out, 10*time.Second)
	if err != nil {
		return nil, 0, fmt.Errorf("reading the fan-out baseline's address: %w", err)
	}
	base := "http://" + addr

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: readers}}
	recv := make([][]atomic.Int64, readers)
	var done sync.WaitGroup
	defer done.Wait()
	defer cancel()
	for w := range readers {
		recv[w] = make([]atomic.Int64, writes)
		req, _ := http.NewRequestWithContext(rctx, "GET", base+"/watch", nil)
		resp, err := client.Do(req)
		if err != nil {
			return nil, 0, fmt.Errorf("baseline reader: %w", err)
		}
		done.Go(func() {
			defer resp.Body.Close()
			readCreated(resp.Body, recv[w])
		})
	}
	resp, err := http.Post(fmt.Sprintf("%s/publish?n=%d&rate=%d&size=%d", base, writes, rate, eventSize), "", nil)
	if err != nil {
		return nil, 0, fmt.Errorf("baseline publish: %w", err)
	}
	var ack []int64
	err = json.NewDecoder(resp.Body).Decode(&ack)
	resp.Body.Close()
	if err != nil || len(ack) != writes {
		return nil, 0, fmt.Errorf("baseline publish answered %d acks: %v", len(ack), err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !allReceived(recv) {
		time.Sleep(20 * time.Millisecond)
	}

	lat := &latencies{}
	missed := 0
	for w := range recv {
		for i := range recv[w] {
			if r := recv[w][i].Load(); r != 0 {
				lat.add(time.Duration(max(0, r-ack[i])))
			} else {
				missed++
			}
		}
	}
	return lat, missed, nil
}

// firstLine reads the first line of r, or fails after timeout (a process
// that does not serve the baseline prints no address).
func firstLine(r io.Reader, timeout time.Duration) (string, error) {
	line := make(chan string, 1)
	failed := make(chan error, 1)
	go func() {
		s, err := bufio.NewReader(r).ReadString('\n')
		if err != nil {
			failed <- err
			return
		}
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		return s, nil
	case err := <-failed:
		return "", err
	case <-time.After(timeout):
		return "", fmt.Errorf("no address within %s", timeout)
	}
}

// fanoutServerArg makes the bench binary serve the fan-out baseline.
const fanoutServerArg = "fanout-server"

// maybeServeFanout serves the fan-out baseline, and exits, when args ask
// for it: the watch workload runs its own executable so, which is the
// bench command or, under go test, the test binary (TestMain).
func maybeServeFanout(args []string) {
	if len(args) != 2 || args[1] != fanoutServerArg {
		return
	}
	if err := serveFanout(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serveFanout is the baseline's process: it prints its loopback address,
// streams to every GET /watch, and publishes on POST /publish, answering
// each line's send time in Unix nanoseconds. It ends when killed.
func serveFanout() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr())
	hub := &fanoutHub{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /watch", hub.stream)
	mux.HandleFunc("POST /publish", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		rate, _ := strconv.Atoi(r.URL.Query().Get("rate"))
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		_ = json.NewEncoder(w).Encode(hub.publishPaced(n, max(1, rate), size))
	})
	return (&http.Server{Handler: mux}).Serve(ln)
}

// baselineEvent is a JSON watch line of size bytes naming pod i as a
// benchmark pod's event does, so readCreated reads both alike.
func baselineEvent(i, size int) []byte {
	head := fmt.Sprintf(`{"type":"ADDED","object":{"metadata":{"name":"pod-%07d","pad":"`, i)
	tail := `"}}}` + "\n"
	pad := max(0, size-len(head)-len(tail))
	return append(append([]byte(head), bytes.Repeat([]byte("x"), pad)...), tail...)
}

// fanoutHub hands every published line to each connected reader's queue.
type fanoutHub struct {
	mu   sync.Mutex
	subs []chan []byte
}

func (h *fanoutHub) stream(w http.ResponseWriter, r *http.Request) {
	ch := make(chan []byte, 1024)
	h.mu.Lock()
	h.subs = append(h.subs, ch)
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	var batch []byte // reused: a fan-out that allocates per line measures the collector
	for {
		select {
		case <-r.Context().Done():
			return
		case line := <-ch:
			// Everything queued goes out in one write and one flush.
			batch = append(batch[:0], line...)
			for len(ch) > 0 {
				batch = append(batch, <-ch...)
			}
			if _, err := w.Write(batch); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// publishPaced publishes n lines of size bytes at rate per second and
// returns when each was handed to the queues.
func (h *fanoutHub) publishPaced(n, rate, size int) []int64 {
	ack := make([]int64, n)
	start := time.Now()
	interval := time.Second / time.Duration(rate)
	for i := range n {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		line := baselineEvent(i, size)
		ack[i] = time.Now().UnixNano()
		h.publish(line)
	}
	return ack
}

// publish queues line for every reader; a full queue drops it, which
// shows as a missed delivery.
func (h *fanoutHub) publish(line []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ch := range h.subs {
		select {
		case ch <- line:
		default:
		}
	}
}
