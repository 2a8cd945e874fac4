package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/google/pprof/profile"
)

// topFunctions reads a CPU profile and describes its n functions with the
// most self time (flat), each with its share of all samples and its
// cumulative time, as `go tool pprof -top` would list them.
func topFunctions(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, err
	}
	vi := cpuValueIndex(p)
	flat, cum := map[string]int64{}, map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		total += v
		seen := map[string]bool{}
		for li, loc := range s.Location {
			for lj, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := line.Function.Name
				// The leaf is the first line of the first location.
				if li == 0 && lj == 0 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("%s has no samples", path)
	}
	names := make([]string, 0, len(flat))
	for name := range flat {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return int(flat[b] - flat[a]) })
	out := []string{fmt.Sprintf("%s CPU in %s of wall time (%.0f%% of one core)", time.Duration(total).Round(time.Millisecond),
		time.Duration(p.DurationNanos).Round(time.Millisecond), 100*float64(total)/float64(max(1, p.DurationNanos)))}
	for _, name := range names[:min(n, len(names))] {
		out = append(out, fmt.Sprintf("%6.1f%% flat %8s, cum %8s  %s", 100*float64(flat[name])/float64(total),
			time.Duration(flat[name]).Round(time.Millisecond), time.Duration(cum[name]).Round(time.Millisecond), name))
	}
	return out, nil
}

// cpuValueIndex finds the sample value in nanoseconds ("cpu"), the second
// of a Go CPU profile's two.
func cpuValueIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			return i
		}
	}
	return len(p.SampleType) - 1
}
