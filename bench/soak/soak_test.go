package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSoak is the one-minute soak `make test` runs (in its bench-smoke
// step): it fails when the server's memory, goroutines or database keep
// growing after warm-up under steady churn. make soak runs it longer.
func TestSoak(t *testing.T) {
	bin := filepath.Join(repoRoot(), "bin", "miniapi")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is missing: run `make build` first", bin)
	}
	cfg := config{
		Duration: time.Minute, Interval: 2 * time.Second, Rate: 50, Watchers: 100, Deployments: 4,
		ScaleEvery: 2 * time.Second, WatchHistory: 1000, JournalPasses: 1000, EventTTL: 5 * time.Minute, Miniapi: bin, OutDir: t.TempDir(),
	}
	rep, err := soak(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.print(&out)
	t.Log("\n" + out.String())
	if bad := failures(rep.results); bad != "" {
		t.Errorf("keeps growing after warm-up: %s (the CSV and PNG are in %s)", bad, cfg.OutDir)
	}
	if rep.writes < int64(cfg.Rate*cfg.Duration.Seconds()/2) {
		t.Errorf("%d writes in %s: the load did not run at its rate", rep.writes, cfg.Duration)
	}
	if rep.events == 0 {
		t.Error("the watchers received no events")
	}
	for _, p := range []string{rep.csvPath, rep.pngPath} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s was not written: %v", p, err)
		}
	}
}

func TestJudgeFindsSteadyGrowthButNotNoise(t *testing.T) {
	var steady, leaking []sample
	for i := range 60 {
		sec := float64(i)
		noise := float64((i*7)%5) - 2 // ±2 MiB, no trend
		steady = append(steady, sample{Seconds: sec, HeapMiB: 30 + noise, RSSMiB: 100 + 3*noise, Goroutines: 900, DBInUseMiB: 4})
		leaking = append(leaking, sample{Seconds: sec, HeapMiB: 30 + noise + 0.5*sec, RSSMiB: 100, Goroutines: 900, DBInUseMiB: 4})
	}
	if bad := failures(judge(steady, 15)); bad != "" {
		t.Errorf("steady samples judged growing: %s", bad)
	}
	if bad := failures(judge(leaking, 15)); bad != "live_heap" {
		t.Errorf("a heap growing 0.5 MiB/s judged %q, want live_heap", bad)
	}
}
