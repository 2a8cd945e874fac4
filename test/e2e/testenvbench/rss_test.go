package testenvbench

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/miniapi/miniapi/pkg/testenv"
)

// runningEnvironments is how many environments BenchmarkRSSPerEnvironment
// holds at once.
const runningEnvironments = 10

// BenchmarkRSSPerEnvironment starts ten environments in this process and
// keeps them running, reading the process's resident set (VmRSS) before
// and after: MiB-RSS/env is the growth divided by ten, as many tests in
// one package binary would see it. With controllers each environment
// also runs the built-in controllers and the simulated kubelet. Freed
// memory is handed back to the system before each reading, so that what
// an earlier environment left free is not counted, nor reused unseen.
// The figure is the mean over the rounds.
func BenchmarkRSSPerEnvironment(b *testing.B) {
	warmUp(b)
	for _, controllers := range []bool{false, true} {
		name := "api-only"
		if controllers {
			name = "controllers"
		}
		b.Run(name, func(b *testing.B) {
			var sum float64
			rounds := 0
			for b.Loop() {
				perEnv, err := rssPerEnvironment(controllers)
				if err != nil {
					b.Fatal(err)
				}
				sum += perEnv
				rounds++
			}
			b.ReportMetric(sum/float64(rounds), "MiB-RSS/env")
		})
	}
}

func rssPerEnvironment(controllers bool) (float64, error) {
	debug.FreeOSMemory()
	before, err := vmRSS()
	if err != nil {
		return 0, err
	}
	envs := make([]*testenv.Environment, 0, runningEnvironments)
	defer func() {
		for _, e := range envs {
			_ = e.Stop()
		}
	}()
	for range runningEnvironments {
		e := &testenv.Environment{Controllers: controllers}
		cfg, err := e.Start()
		if err != nil {
			return 0, err
		}
		envs = append(envs, e)
		if err := firstRequest(cfg, 0); err != nil {
			return 0, err
		}
	}
	debug.FreeOSMemory()
	after, err := vmRSS()
	if err != nil {
		return 0, err
	}
	return float64(after-before) / (1 << 20) / runningEnvironments, nil
}

// vmRSS is this process's resident set size in bytes, from
// /proc/self/status.
func vmRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		return kb << 10, err
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status: %v", s.Err())
}
