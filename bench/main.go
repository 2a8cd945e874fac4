// Command bench measures what users of miniapi feel — start time, memory,
// durable writes, reads, watch delivery, reconcile speed, growth and churn —
// next to baselines measured in the same run on the same machine.
//
// It starts bin/miniapi as a separate process on a fresh data dir and a
// random loopback port and drives it through the HTTP API with client-go.
// With --kubeconfig it drives any Kubernetes API server instead and skips
// what needs miniapi's own process (start time, RSS, database size, the raw
// bbolt baseline).
//
//	go run . --profile=quick            # make bench
//	go run . --profile=full             # make bench BENCH=full
//	go run . --kubeconfig ~/.kube/config
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// options is the command line.
type options struct {
	Profile    string // quick, full or smoke
	Kubeconfig string // drive this server instead of starting bin/miniapi
	Miniapi    string // path of bin/miniapi
	WorkDir    string // parent of the fresh data dirs and the raw bbolt file
	Out        string // JSON results; the plot goes next to it
	Plot       string // plot file (.png or .svg)
	Only       string // comma-separated workload names to run (all when empty)
	PprofDir   string // where CPU and heap profiles of the server are saved (none when empty)
	Etcd       string // path of bin/etcd, for the workloads on etcd
	// BaselineMiniapi is a second miniapi binary the *-baseline workloads
	// run, so that a change is measured against its before in one run.
	BaselineMiniapi string
}

func main() {
	maybeServeFanout(os.Args)
	root := repoRoot()
	var o options
	flag.StringVar(&o.Profile, "profile", "quick", "sizes to run: quick (under 3 minutes on 2 cores), full (the issue's sizes) or smoke (tiny)")
	flag.StringVar(&o.Kubeconfig, "kubeconfig", "", "benchmark the API server this kubeconfig names instead of starting bin/miniapi")
	flag.StringVar(&o.Miniapi, "miniapi", filepath.Join(root, "bin", "miniapi"), "the miniapi binary to start")
	flag.StringVar(&o.Etcd, "etcd", filepath.Join(root, "bin", "etcd"), "the etcd binary the *-etcd workloads start (make etcd)")
	flag.StringVar(&o.WorkDir, "work-dir", "", "where fresh data dirs are made (default: a temp dir on the same disk as the system temp dir)")
	flag.StringVar(&o.Out, "out", filepath.Join(root, "bench-results.json"), "file for the results as JSON")
	flag.StringVar(&o.Plot, "plot", filepath.Join(root, "bench-latency.png"), "file for the latency plot (.png or .svg)")
	flag.StringVar(&o.Only, "only", "", "run only these workloads (comma-separated: "+workloadNames()+")")
	flag.StringVar(&o.PprofDir, "pprof-dir", "", "save a CPU profile of the server during each workload's measured phase (and a heap profile when loaded) in this directory")
	flag.StringVar(&o.BaselineMiniapi, "baseline-miniapi", "", "a second miniapi binary (e.g. built before a change) that the *-baseline workloads run, each figure next to --miniapi's")
	verbose := flag.Bool("v", false, "log each workload's phases")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, o, log)
	if res != nil {
		res.PrintTable(os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

// repoRoot finds the product repository's top folder from the working
// directory (the bench module lives one level below it).
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "cmd", "miniapi")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}
