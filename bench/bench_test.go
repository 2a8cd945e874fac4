package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMain lets the test binary serve the watch workload's fan-out
// baseline, as the bench command does.
func TestMain(m *testing.M) {
	maybeServeFanout(os.Args)
	os.Exit(m.Run())
}

// TestSmoke runs every workload at the smoke profile's tiny sizes against
// a real bin/miniapi and checks that the JSON holds every figure, that the
// figures are sane (finite, positive where they must be, p50 ≤ p99) and
// that the plot was drawn. It checks no speed: that is the benchmark's job.
func TestSmoke(t *testing.T) {
	bin := filepath.Join(repoRoot(), "bin", "miniapi")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is missing: run `make build` first", bin)
	}
	etcd := filepath.Join(repoRoot(), "bin", "etcd")
	if _, err := os.Stat(etcd); err != nil {
		t.Fatalf("%s is missing: run `make etcd` first", etcd)
	}
	dir := t.TempDir()
	o := options{
		Profile: "smoke", Miniapi: bin, Etcd: etcd, WorkDir: dir, PprofDir: dir,
		Out: filepath.Join(dir, "bench-results.json"), Plot: filepath.Join(dir, "bench-latency.png"),
	}
	res, err := run(t.Context(), o, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		if res != nil {
			t.Logf("errors: %s", strings.Join(res.Errors, "; "))
		}
		t.Fatal(err)
	}
	b, err := os.ReadFile(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	var got results
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("results are not JSON: %v", err)
	}
	sz, _ := profileSizes("smoke")
	byKey := map[string]figure{}
	for _, f := range got.Figures {
		if _, dup := byKey[f.Key]; dup {
			t.Errorf("figure %s reported twice", f.Key)
		}
		byKey[f.Key] = *f
		checkSane(t, *f)
	}
	for _, k := range expectedKeys(sz) {
		if _, ok := byKey[k]; !ok {
			t.Errorf("figure %s missing from the JSON", k)
		}
	}
	for k, f := range byKey {
		if p50, ok := strings.CutSuffix(k, ".p50_ms"); ok {
			if p99, ok := byKey[p50+".p99_ms"]; !ok || p99.Value < f.Value {
				t.Errorf("%s: p50 %.3f ms > p99 %.3f ms (or p99 missing)", p50, f.Value, p99.Value)
			}
		}
	}
	for _, k := range []string{"start.empty_ms", "memory.idle_rss_mib", "creates.c4.rate", "churn.end_mb"} {
		if byKey[k].Target == nil && byKey[k].Baseline == nil {
			t.Errorf("%s has neither a target nor a baseline", k)
		}
	}
	for _, n := range sz.GrowthSteps[1:] {
		for _, k := range []string{fmt.Sprintf("growth.%d.write_ms", n), fmt.Sprintf("growth.%d.list_ms", n)} {
			if byKey[k].Baseline == nil {
				t.Errorf("%s is not compared with the first step", k)
			}
		}
	}
	if last := sz.GrowthSteps[len(sz.GrowthSteps)-1]; byKey[fmt.Sprintf("growth.%d.write_ms", last)].Target == nil {
		t.Error("the growth write cost at the largest store has no target")
	}
	for _, c := range sz.CreateClients {
		if f := byKey[fmt.Sprintf("creates.c%d.rate", c)]; f.Baseline == nil {
			t.Errorf("creates at %d clients lack the raw bbolt baseline", c)
		}
	}
	if f := byKey["creates.c4.rate"]; f.Baseline == nil || f.Baseline.Value <= 0 || f.Baseline.Ratio <= 0 {
		t.Errorf("durable creates lack the raw bbolt baseline: %+v", f.Baseline)
	}
	if f := byKey["reconcile.3x2.write_bound_gap"]; f.Baseline == nil {
		t.Error("the reconcile round is not compared with the time its writes take as one burst")
	}
	if !slices.ContainsFunc(got.Notes, func(n string) bool { return strings.HasPrefix(n, "reconcile, top 10 functions") }) {
		t.Errorf("no top 10 functions of the reconcile profile in the notes: %q", got.Notes)
	}
	for _, p := range []string{o.Plot, filepath.Join(dir, "creates.cpu.pprof"), filepath.Join(dir, "memory.heap.pprof"), filepath.Join(dir, "reconcile.cpu.pprof")} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
}

// checkSane fails figures that are not finite, negative, or zero where
// zero cannot be right (only a watch delivery can beat its write's ack).
func checkSane(t *testing.T, f figure) {
	t.Helper()
	if math.IsNaN(f.Value) || math.IsInf(f.Value, 0) || f.Value < 0 {
		t.Errorf("%s = %v %s", f.Key, f.Value, f.Unit)
	}
	// A watch event may come before the write's answer (0 ms).
	watch := strings.HasPrefix(f.Key, "watch.") || strings.HasPrefix(f.Key, "etcd.watch.")
	// No conflict at all is the best outcome.
	conflicts := strings.HasSuffix(f.Key, ".conflicts_per_pod")
	if f.Value == 0 && !watch && !conflicts {
		t.Errorf("%s is 0 %s", f.Key, f.Unit)
	}
	if f.Baseline != nil && (f.Baseline.Value <= 0 || f.Baseline.Ratio <= 0) {
		t.Errorf("%s: baseline %+v is not positive", f.Key, *f.Baseline)
	}
}

// expectedKeys lists every figure a run against miniapi reports.
func expectedKeys(sz sizes) []string {
	keys := []string{
		"start.empty_ms", "start.loaded_ms",
		"memory.idle_rss_mib", "memory.idle_anon_mib", "memory.pods_rss_mib", "memory.pods_anon_mib", "memory.objects_rss_mib", "memory.db_bytes_per_object", "memory.db_inuse_bytes_per_object",
		"get.p50_ms", "get.p99_ms", "list.selector.ms",
		"churn.first_mb", "churn.mid_mb", "churn.end_mb", "churn.updates_per_s",
	}
	for _, c := range sz.CreateClients {
		keys = append(keys, fmt.Sprintf("creates.c%d.rate", c), fmt.Sprintf("creates.c%d.p50_ms", c), fmt.Sprintf("creates.c%d.p99_ms", c))
	}
	for _, n := range sz.ListSizes {
		keys = append(keys, fmt.Sprintf("list.%d.ms", n), fmt.Sprintf("list.%d.mbps", n))
	}
	for _, w := range sz.Watchers {
		keys = append(keys, fmt.Sprintf("watch.w%d.p50_ms", w), fmt.Sprintf("watch.w%d.p99_ms", w), fmt.Sprintf("watch.w%d.cpu_ms_per_event", w))
	}
	for _, dr := range sz.Reconcile {
		for _, k := range []string{"s", "pods_per_s", "writes_per_pod", "conflicts_per_pod", "commit_rate", "write_bound_gap",
			"last_pod_created_s", "last_pod_bound_s", "last_pod_ready_s", "median_create_to_bind_s", "median_bind_to_ready_s",
			"writes.create.pods", "writes.patch.pods_status", "server_cpu_s", "cpu_ms_per_write"} {
			keys = append(keys, fmt.Sprintf("reconcile.%dx%d.%s", dr[0], dr[1], k))
		}
	}
	for _, n := range sz.GrowthSteps {
		keys = append(keys, fmt.Sprintf("growth.%d.write_ms", n), fmt.Sprintf("growth.%d.list_ms", n))
	}
	keys = append(keys, etcdKeys(keys)...)
	for _, dr := range sz.Reconcile {
		keys = append(keys, fmt.Sprintf("nojournal.reconcile.%dx%d.s", dr[0], dr[1]))
	}
	return keys
}

// etcdKeys are the figures the *-etcd workloads report again on etcd.
func etcdKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		for _, p := range []string{"creates.", "get.", "list.", "watch.", "reconcile."} {
			if strings.HasPrefix(k, p) {
				out = append(out, "etcd."+k)
			}
		}
	}
	return out
}

// TestSmokeKubeconfig drives a miniapi through --kubeconfig, as it would
// any other API server, and checks that what needs miniapi's own process
// is skipped rather than measured and that the API figures are there.
func TestSmokeKubeconfig(t *testing.T) {
	bin := filepath.Join(repoRoot(), "bin", "miniapi")
	dir := t.TempDir()
	srv, err := newServer(bin, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	o := options{
		Profile: "smoke", Kubeconfig: filepath.Join(srv.DataDir, "kubeconfig"), Only: "coldstart,creates,churn",
		Out: filepath.Join(dir, "r.json"), Plot: filepath.Join(dir, "p.svg"),
	}
	res, err := run(t.Context(), o, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 3 {
		t.Errorf("skipped %q; want cold start, raw bbolt baseline and churn", res.Skipped)
	}
	for _, f := range res.Figures {
		if !strings.HasPrefix(f.Key, "creates.") {
			t.Errorf("figure %s measured through a kubeconfig", f.Key)
		}
		if f.Baseline != nil {
			t.Errorf("%s has a raw bbolt baseline though the disk is not ours", f.Key)
		}
	}
	if _, ok := res.lookup("creates.c4.rate"); !ok {
		t.Error("durable creates not measured through the kubeconfig")
	}
}
