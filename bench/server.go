package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/miniapi/miniapi/bench/internal/miniproc"
)

// server is one bin/miniapi process on its own data dir (miniproc).
type server = miniproc.Server

// newServer prepares a server on a fresh data dir under workDir and a
// free loopback port; Start runs it.
func newServer(bin, workDir string, extraArgs ...string) (*server, error) {
	return miniproc.New(bin, workDir, extraArgs...)
}

// cpuProfile fetches a CPU profile of the next d from /debug/pprof and
// saves it to path; run it in its own goroutine while a workload runs.
func cpuProfile(ctx context.Context, s *server, d time.Duration, path string) error {
	return saveGet(ctx, s, fmt.Sprintf("/debug/pprof/profile?seconds=%d", max(1, int(d.Seconds()))), path)
}

// heapProfile saves the current heap profile to path.
func heapProfile(ctx context.Context, s *server, path string) error {
	return saveGet(ctx, s, "/debug/pprof/heap?gc=1", path)
}

func saveGet(ctx context.Context, s *server, p, path string) error {
	b, err := s.Get(ctx, p)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
