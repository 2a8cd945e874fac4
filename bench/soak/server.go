package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/miniapi/miniapi/bench/internal/miniproc"
)

// startServer runs bin at a free loopback port on a fresh data dir under
// workDir (miniproc: profiling on, so the heap figure comes from
// /debug/pprof) and waits until it is ready.
func startServer(ctx context.Context, bin, workDir string, extraArgs ...string) (*miniproc.Server, error) {
	s, err := miniproc.New(bin, workDir, extraArgs...)
	if err != nil {
		return nil, err
	}
	if _, err := s.Start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// liveHeapBytes is the heap in use right after a garbage collection
// (/debug/pprof/heap?gc=1 collects first): the live heap, without the
// saw-tooth of garbage between two collections that heap_alloc shows.
func liveHeapBytes(ctx context.Context, s *miniproc.Server) (float64, error) {
	b, err := s.Get(ctx, "/debug/pprof/heap?debug=1&gc=1")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "# HeapAlloc = "); ok {
			return strconv.ParseFloat(strings.TrimSpace(rest), 64)
		}
	}
	return 0, fmt.Errorf("no HeapAlloc in the heap profile")
}

// metrics reads the named gauges from /metrics.
func metrics(ctx context.Context, s *miniproc.Server, names ...string) (map[string]float64, error) {
	b, err := s.Get(ctx, "/metrics")
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || !want[name] {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("/metrics has no %s", n)
		}
	}
	return out, nil
}
