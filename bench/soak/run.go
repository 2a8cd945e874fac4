package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/miniapi/miniapi/bench/internal/miniproc"
)

// report is a soak's outcome.
type report struct {
	cfg               config
	samples           []sample
	results           []growthResult
	csvPath, pngPath  string
	writes, failures  int64
	events, rewatches int64
	counts            string // objects in the namespace at the end
}

// soak starts the server, runs the load for cfg.Duration while sampling,
// and writes the CSV and the PNG into cfg.OutDir.
func soak(ctx context.Context, cfg config, log *slog.Logger) (*report, error) {
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "miniapi-soak-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	// The history and the journal are bounded rings; sized so that both
	// are full before warm-up ends, their filling is not taken for a leak.
	srv, err := startServer(ctx, cfg.Miniapi, work, fmt.Sprintf("--watch-history=%d", cfg.WatchHistory),
		fmt.Sprintf("--journal-passes=%d", cfg.JournalPasses), fmt.Sprintf("--event-ttl=%s", cfg.EventTTL))
	if err != nil {
		return nil, err
	}
	defer func() {
		_ = srv.Stop()
		copyFile(srv.LogPath, filepath.Join(cfg.OutDir, "miniapi.log"))
	}()
	rc := &rest.Config{Host: srv.URL(), RateLimiter: flowcontrol.NewFakeAlwaysRateLimiter(), UserAgent: "miniapi-soak"}
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	const ns = "soak"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}

	l := &load{cs: cs, ns: ns, cfg: cfg}
	loadCtx, stopLoad := context.WithTimeout(ctx, cfg.Duration)
	defer stopLoad()
	var wg sync.WaitGroup
	wg.Go(func() { l.run(loadCtx) })
	start := time.Now()
	log.Info("soak started", "duration", cfg.Duration, "interval", cfg.interval(), "warmup", cfg.warmup(), "rate", cfg.Rate, "watchers", cfg.Watchers, "out", cfg.OutDir)
	samples, err := sampleUntil(loadCtx, srv, l, start, cfg.interval(), log)
	stopLoad()
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	counts := countObjects(ctx, cs, ns)
	rep := &report{cfg: cfg, samples: samples, results: judge(samples, cfg.warmup().Seconds()), counts: counts,
		csvPath: filepath.Join(cfg.OutDir, "soak.csv"), pngPath: filepath.Join(cfg.OutDir, "soak.png"),
		writes: l.writes.Load(), failures: l.failures.Load(), events: l.events.Load(), rewatches: l.rewatches.Load()}
	if err := writeCSV(rep.csvPath, samples); err != nil {
		return nil, err
	}
	if err := writePNG(rep.pngPath, samples, cfg.warmup().Seconds()); err != nil {
		return nil, err
	}
	return rep, nil
}

// sampleUntil samples the server every interval until ctx ends; it stops
// early, with an error, if the server exits.
func sampleUntil(ctx context.Context, srv *miniproc.Server, l *load, start time.Time, interval time.Duration, log *slog.Logger) ([]sample, error) {
	var samples []sample
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if err := srv.Exited(); err != nil {
			return nil, err
		}
		readCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s, err := read(readCtx, srv, l, start)
		cancel()
		if ctx.Err() != nil {
			return samples, nil // the load stopped during the reading
		}
		if err != nil {
			log.Warn("sample failed", "err", err)
		} else {
			samples = append(samples, s)
			log.Debug("sample", "s", s)
		}
		select {
		case <-ctx.Done():
			return samples, nil
		case <-tick.C:
		}
	}
}

// print writes the summary: the load done and each figure's verdict.
func (r *report) print(w io.Writer) {
	el := 0.0
	if n := len(r.samples); n > 0 {
		el = r.samples[n-1].Seconds
	}
	fmt.Fprintf(w, "soak: %s, %d samples, warm-up %s; %d writes (%.0f/s), %d failed; %d watch events, %d watches resumed\n",
		r.cfg.Duration, len(r.samples), r.cfg.warmup(), r.writes, float64(r.writes)/max(el, 1), r.failures, r.events, r.rewatches)
	fmt.Fprintf(w, "  objects at the end: %s\n", r.counts)
	for _, res := range r.results {
		fmt.Fprintln(w, "  "+res.String())
	}
	fmt.Fprintf(w, "  csv %s\n  png %s\n", r.csvPath, r.pngPath)
}

// countObjects says how many objects of each churned kind the namespace
// holds: what the database keeps besides the history.
func countObjects(ctx context.Context, cs kubernetes.Interface, ns string) string {
	var parts []string
	add := func(kind string, n int, err error) {
		if err != nil {
			parts = append(parts, kind+" ?")
			return
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, kind))
	}
	cms, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	add("configmaps", len(cms.Items), err)
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	add("pods", len(pods.Items), err)
	rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	add("replicasets", len(rss.Items), err)
	evs, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	add("events", len(evs.Items), err)
	return strings.Join(parts, ", ")
}

func copyFile(from, to string) {
	if b, err := os.ReadFile(from); err == nil {
		_ = os.WriteFile(to, b, 0o644)
	}
}
