// Command soak runs bin/miniapi under steady churn for a while and checks
// that its memory, goroutines and database stop growing once warmed up.
//
// ConfigMaps are created, patched and deleted at a fixed rate, Deployments
// are scaled up and down (so the ReplicaSet controller, the simulated
// kubelet and the garbage collector keep working) and 100 watchers read
// every change. Every few seconds it samples the server's RSS, live heap
// (from /debug/pprof after a GC), goroutines and database size, then
// writes them as CSV and plots them as a PNG. It exits 1 when a figure
// keeps growing after warm-up (see verdict.go).
//
//	go run ./soak --duration=30m   # make soak DURATION=30m
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
)

// config is the command line.
type config struct {
	Duration      time.Duration
	Interval      time.Duration // between samples; 0: Duration/200, within 2s..10s
	Rate          float64       // ConfigMap writes per second
	Watchers      int
	Deployments   int
	ScaleEvery    time.Duration
	WatchHistory  int
	JournalPasses int
	EventTTL      time.Duration
	Miniapi       string
	OutDir        string
}

func main() {
	var cfg config
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Minute, "how long to run the load")
	flag.DurationVar(&cfg.Interval, "interval", 0, "time between samples (default: duration/200, within 2s..10s)")
	flag.Float64Var(&cfg.Rate, "rate", 50, "ConfigMap creates, patches and deletes per second")
	flag.IntVar(&cfg.Watchers, "watchers", 100, "watches kept open (half on ConfigMaps, half on pods)")
	flag.IntVar(&cfg.Deployments, "deployments", 4, "Deployments scaled between 1 and 4 replicas")
	flag.DurationVar(&cfg.ScaleEvery, "scale-every", 2*time.Second, "how often one Deployment is scaled")
	flag.IntVar(&cfg.WatchHistory, "watch-history", 1000, "the server's --watch-history: small enough that the history is full before warm-up ends")
	flag.IntVar(&cfg.JournalPasses, "journal-passes", 1000, "the server's --journal-passes: small enough that the journal is full before warm-up ends")
	flag.DurationVar(&cfg.EventTTL, "event-ttl", 5*time.Minute, "the server's --event-ttl: short enough that the Events the controllers record reach a steady count in a long run")
	flag.StringVar(&cfg.Miniapi, "miniapi", filepath.Join(repoRoot(), "bin", "miniapi"), "the miniapi binary")
	flag.StringVar(&cfg.OutDir, "out", filepath.Join(repoRoot(), "soak-results"), "directory for soak.csv, soak.png and the server's log")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := soak(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	rep.print(os.Stdout)
	if bad := failures(rep.results); bad != "" {
		fmt.Fprintf(os.Stderr, "soak: keeps growing after warm-up: %s\n", bad)
		os.Exit(1)
	}
}

// repoRoot is the repository's top folder (this file is in bench/soak).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// warmup is how long the server is given to reach its steady state: a
// quarter of the run, at least 15 s.
func (c config) warmup() time.Duration { return max(15*time.Second, c.Duration/4) }

func (c config) interval() time.Duration {
	if c.Interval > 0 {
		return c.Interval
	}
	return min(10*time.Second, max(2*time.Second, c.Duration/200))
}
