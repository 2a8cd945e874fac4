package main

import (
	"context"
	"os"
)

// variant is a second run of a workload on another setup, so that the
// table shows its figures next to those of the default one, measured in
// the same run.
type variant struct {
	key        string   // prefix of the figures' keys: "etcd" → "etcd.creates.c1.rate"
	name       string   // shown after the workload: "on etcd"
	serverArgs []string // added to miniapi's flags
	etcd       bool     // each cluster gets a fresh one-member etcd (bin/etcd)
	bin        string   // the miniapi binary to start instead of --miniapi
}

func (v variant) prefix(key string) string {
	if v.key == "" {
		return key
	}
	return v.key + "." + key
}

// keySuffix tells a variant's files apart: "" or "-etcd".
func (v variant) keySuffix() string {
	if v.key == "" {
		return ""
	}
	return "-" + v.key
}

func (v variant) suffix() string {
	if v.name == "" {
		return ""
	}
	return " " + v.name
}

// add records a figure of the env's variant.
func (e *env) add(workload, key, name string, value float64, unit string) *figure {
	return e.res.add(workload+e.variant.suffix(), e.variant.prefix(key), name, value, unit)
}

// onEtcd runs a workload again on miniapi with --etcd-servers, on a fresh
// one-member etcd (bin/etcd, `make etcd`) per cluster. Without bin/etcd it
// is skipped.
func onEtcd(run func(context.Context, *env) error) func(context.Context, *env) error {
	return func(ctx context.Context, e *env) error {
		if _, err := os.Stat(e.opts.Etcd); err != nil {
			e.skip("etcd workloads: " + e.opts.Etcd + " is missing (make etcd)")
			return nil
		}
		return again(ctx, e, variant{key: "etcd", name: "on etcd", etcd: true}, run)
	}
}

// withoutJournal runs a workload again on miniapi with --journal-passes=0,
// so that the journal's cost is the ratio of the two runs.
func withoutJournal(run func(context.Context, *env) error) func(context.Context, *env) error {
	return func(ctx context.Context, e *env) error {
		return again(ctx, e, variant{key: "nojournal", name: "with the journal off", serverArgs: []string{"--journal-passes=0"}}, run)
	}
}

// withBaseline runs a workload again on the --baseline-miniapi binary
// (say, one built from the commit before a change), so that the table
// shows both binaries' figures from the same run; each of the baseline's
// figures has the --miniapi binary's as its baseline. Without the flag it
// does nothing.
func withBaseline(run func(context.Context, *env) error) func(context.Context, *env) error {
	return func(ctx context.Context, e *env) error {
		if e.opts.BaselineMiniapi == "" {
			e.skip("baseline workloads: no --baseline-miniapi")
			return nil
		}
		return again(ctx, e, variant{key: "baseline", name: "on --baseline-miniapi", bin: e.opts.BaselineMiniapi}, run)
	}
}

// vsDefault gives a figure of the baseline variant the same figure of the
// --miniapi binary, when that ran, as its baseline: the ratio is then
// before/after.
func (e *env) vsDefault(f *figure, key string) {
	if e.variant.key != "baseline" {
		return
	}
	if now, ok := e.res.lookup(key); ok {
		f.vs("--miniapi", now.Value)
	}
}

// miniapiBin is the binary this env's clusters run.
func (e *env) miniapiBin() string {
	if e.variant.bin != "" {
		return e.variant.bin
	}
	return e.opts.Miniapi
}

// again runs a workload on a copy of e set up as v. A --kubeconfig server
// is what it is: there is nothing to vary.
func again(ctx context.Context, e *env, v variant, run func(context.Context, *env) error) error {
	if e.opts.Kubeconfig != "" {
		return nil
	}
	second := *e
	second.variant = v
	return run(ctx, &second)
}
