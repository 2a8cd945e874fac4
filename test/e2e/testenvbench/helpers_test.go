package testenvbench

import (
	"testing"

	"github.com/miniapi/miniapi/pkg/testenv"
)

// TestBenchmarkHelpers runs what the benchmarks measure once, so that
// `go test` finds a broken CRD or first request without -bench: the ten
// CRDs install, the last one's resources list, and VmRSS reads.
func TestBenchmarkHelpers(t *testing.T) {
	env := &testenv.Environment{CRDs: tenCRDs()}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	}()
	if len(env.CRDs) != 10 {
		t.Errorf("%d CRDs installed; want 10", len(env.CRDs))
	}
	if err := firstRequest(cfg, 10); err != nil {
		t.Errorf("first request with 10 CRDs: %v", err)
	}
	if err := firstRequest(cfg, 0); err != nil {
		t.Errorf("first request: %v", err)
	}
	if rss, err := vmRSS(); err != nil || rss < 1<<20 {
		t.Errorf("VmRSS %d bytes, %v", rss, err)
	}
}
