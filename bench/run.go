package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// workload is one row group of the table.
type workload struct {
	name string
	run  func(context.Context, *env) error
}

// workloads run in this order; each starts its own fresh miniapi so one
// workload's leftovers never weigh on the next.
var workloads = []workload{
	{"coldstart", coldStart},
	{"memory", memory},
	{"memory-baseline", withBaseline(memory)},
	{"creates", creates},
	{"getlist", getList},
	{"getlist-baseline", withBaseline(getList)},
	{"watch", watchLatency},
	{"watch-baseline", withBaseline(watchLatency)},
	{"reconcile", reconcile},
	{"reconcile-baseline", withBaseline(reconcile)},
	{"growth", growth},
	{"churn", churn},
	{"creates-etcd", onEtcd(creates)},
	{"getlist-etcd", onEtcd(getList)},
	{"watch-etcd", onEtcd(watchLatency)},
	{"reconcile-etcd", onEtcd(reconcile)},
	{"reconcile-nojournal", withoutJournal(reconcile)},
}

func workloadNames() string {
	var n []string
	for _, w := range workloads {
		n = append(n, w.name)
	}
	return strings.Join(n, ",")
}

// run measures every selected workload, then writes the JSON and the plot.
// A workload that fails is recorded in the results and the rest still run.
func run(ctx context.Context, o options, log *slog.Logger) (*results, error) {
	sz, err := profileSizes(o.Profile)
	if err != nil {
		return nil, err
	}
	if o.Kubeconfig == "" {
		if _, err := os.Stat(o.Miniapi); err != nil {
			return nil, fmt.Errorf("%s is missing: run `make build` first", o.Miniapi)
		}
	}
	if o.WorkDir == "" {
		dir, err := os.MkdirTemp("", "miniapi-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		o.WorkDir = dir
	}
	if o.PprofDir != "" {
		if err := os.MkdirAll(o.PprofDir, 0o755); err != nil {
			return nil, err
		}
	}
	tgt := "miniapi (" + o.Miniapi + ")"
	if o.Kubeconfig != "" {
		tgt = "kubeconfig " + o.Kubeconfig
	}
	e := &env{opts: o, sizes: sz, res: newResults(sz.Name, tgt), log: log, runID: newRunID()}
	only := map[string]bool{}
	for _, n := range strings.Split(o.Only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			only[n] = true
		}
	}
	t0 := time.Now()
	for _, w := range workloads {
		if len(only) > 0 && !only[w.name] {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		log.Info("workload", "name", w.name, "profile", sz.Name)
		wt := time.Now()
		if err := w.run(ctx, e); err != nil {
			e.res.Errors = append(e.res.Errors, fmt.Sprintf("%s: %v", w.name, err))
			log.Error("workload failed", "name", w.name, "err", err)
		}
		log.Info("workload done", "name", w.name, "seconds", time.Since(wt).Seconds())
	}
	e.res.Seconds = time.Since(t0).Seconds()
	if err := e.res.writeJSON(o.Out); err != nil {
		return e.res, err
	}
	if o.Plot != "" && len(e.res.Series) > 0 {
		if err := writePlot(e.res, o.Plot); err != nil {
			return e.res, fmt.Errorf("plot: %w", err)
		}
	}
	log.Info("wrote results", "json", o.Out, "plot", o.Plot)
	if len(e.res.Errors) > 0 {
		return e.res, fmt.Errorf("%d workload(s) failed", len(e.res.Errors))
	}
	return e.res, nil
}

// skip records a figure that this target cannot measure.
func (e *env) skip(what string) {
	e.res.Skipped = append(e.res.Skipped, what)
}

// profileDuring takes a CPU profile of the server for the profile's
// ProfileFor while a workload's measured phase runs, when --pprof-dir is
// set; the returned func waits for it to be saved and notes its top 10
// functions in the results.
func (e *env) profileDuring(ctx context.Context, c *cluster, name string) (wait func()) {
	if e.opts.PprofDir == "" || !c.own() {
		return func() {}
	}
	name += e.variant.keySuffix()
	path := filepath.Join(e.opts.PprofDir, name+".cpu.pprof")
	done := make(chan error, 1)
	go func() { done <- cpuProfile(ctx, c.srv, e.sizes.ProfileFor, path) }()
	return func() {
		err := <-done
		var top []string
		if err == nil {
			top, err = topFunctions(path, 10)
		}
		if err != nil {
			e.log.Warn("cpu profile", "workload", name, "err", err)
			return
		}
		e.res.Notes = append(e.res.Notes, fmt.Sprintf("%s, top 10 functions by self time (%s):\n    %s",
			name, path, strings.Join(top, "\n    ")))
	}
}
