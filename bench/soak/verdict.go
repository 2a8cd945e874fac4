package main

import (
	"fmt"
	"slices"
	"strings"
)

// Growth after warm-up. A figure "keeps growing" when both
//
//   - the median of the last third of the samples after warm-up is above
//     the median of the middle third by more than the tolerance, and
//   - the least-squares line through all samples after warm-up rises by
//     more than the tolerance over their span.
//
// Medians ignore a few outliers (a GC that came late, a burst of
// reconnecting watchers); the slope ignores a step that happened once.
// Requiring both keeps a noisy 2-core machine from failing the check,
// while a leak, which raises both, still fails it. The tolerance is an
// absolute floor plus a fraction of the middle median.

// growthRule is one figure's tolerance.
type growthRule struct {
	name   string
	unit   string
	value  func(sample) float64
	abs    float64 // tolerance floor, in unit
	rel    float64 // plus this fraction of the middle third's median
	report bool    // a figure the summary shows but that does not fail the run
}

// rules are the figures checked. The DB file is reported, not checked: it
// grows in bbolt's steps and never shrinks by itself; the pages in use are
// what would show a leak.
var rules = []growthRule{
	{name: "rss", unit: "MiB", value: func(s sample) float64 { return s.RSSMiB }, abs: 12, rel: 0.08},
	{name: "live_heap", unit: "MiB", value: func(s sample) float64 { return s.HeapMiB }, abs: 3, rel: 0.05},
	{name: "goroutines", unit: "", value: func(s sample) float64 { return s.Goroutines }, abs: 30, rel: 0.05},
	{name: "db_in_use", unit: "MiB", value: func(s sample) float64 { return s.DBInUseMiB }, abs: 1, rel: 0.10},
	{name: "db_file", unit: "MiB", value: func(s sample) float64 { return s.DBFileMiB }, report: true},
}

// growthResult is one figure's verdict.
type growthResult struct {
	rule                   growthRule
	start, end             float64 // first and last sample
	middle, last           float64 // medians of the middle and last thirds after warm-up
	lineRise, tolerance    float64
	growing, enoughSamples bool
}

func (r growthResult) String() string {
	verdict := "steady"
	switch {
	case !r.enoughSamples:
		verdict = "too few samples after warm-up"
	case r.growing && r.rule.report:
		verdict = "grew (reported only)"
	case r.growing:
		verdict = "KEEPS GROWING"
	}
	return fmt.Sprintf("%-10s start %8.1f%s  end %8.1f%s  middle→last median %8.1f→%-8.1f line rise %+7.1f (tolerance %.1f): %s",
		r.rule.name, r.start, r.rule.unit, r.end, r.rule.unit, r.middle, r.last, r.lineRise, r.tolerance, verdict)
}

// judge applies every rule to the samples taken at or after warmup
// seconds.
func judge(samples []sample, warmup float64) []growthResult {
	var post []sample
	for _, s := range samples {
		if s.Seconds >= warmup {
			post = append(post, s)
		}
	}
	var out []growthResult
	for _, rule := range rules {
		r := growthResult{rule: rule}
		if len(samples) > 0 {
			r.start, r.end = rule.value(samples[0]), rule.value(samples[len(samples)-1])
		}
		if len(post) >= 9 {
			r.enoughSamples = true
			third := len(post) / 3
			xs, ys := make([]float64, len(post)), make([]float64, len(post))
			for i, s := range post {
				xs[i], ys[i] = s.Seconds, rule.value(s)
			}
			r.middle = median(ys[third : 2*third])
			r.last = median(ys[len(ys)-third:])
			r.lineRise = slope(xs, ys) * (xs[len(xs)-1] - xs[0])
			r.tolerance = rule.abs + rule.rel*r.middle
			r.growing = r.last-r.middle > r.tolerance && r.lineRise > r.tolerance
		}
		out = append(out, r)
	}
	return out
}

// failures names the checked figures that keep growing, or that could not
// be judged.
func failures(results []growthResult) string {
	var bad []string
	for _, r := range results {
		if r.rule.report {
			continue
		}
		if !r.enoughSamples || r.growing {
			bad = append(bad, r.rule.name)
		}
	}
	return strings.Join(bad, ", ")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// slope is the least-squares slope of ys against xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
