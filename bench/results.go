package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// results is everything one run measured; it is written as JSON and
// printed as a table.
type results struct {
	Profile   string    `json:"profile"`
	Target    string    `json:"target"` // "miniapi" or the API server's URL
	Started   time.Time `json:"started"`
	Seconds   float64   `json:"seconds"`
	CPUs      int       `json:"cpus"`
	GoVersion string    `json:"goVersion"`
	Figures   []*figure `json:"figures"`
	Series    []series  `json:"series,omitempty"` // what the plot draws
	Skipped   []string  `json:"skipped,omitempty"`
	Errors    []string  `json:"errors,omitempty"`
	Notes     []string  `json:"notes,omitempty"`
}

// figure is one measured number, with its baseline and the target
// when it has them.
type figure struct {
	Workload string    `json:"workload"`
	Key      string    `json:"key"`  // stable machine name, e.g. "creates.c64.rate"
	Name     string    `json:"name"` // what a reader sees
	Value    float64   `json:"value"`
	Unit     string    `json:"unit"`
	Baseline *baseline `json:"baseline,omitempty"`
	Target   *target   `json:"target,omitempty"`
}

// baseline is the same thing measured another way in the same run; Ratio
// is Value over the baseline's value.
type baseline struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Ratio float64 `json:"ratio"`
}

// target is the goal for a figure; Pass says whether it was met.
type target struct {
	Text string `json:"text"`
	Pass bool   `json:"pass"`
}

// series is one line of the plot: a latency or cost (Y) against a count
// (X); series with the same XLabel share a panel.
type series struct {
	Name   string    `json:"name"`
	XLabel string    `json:"xLabel"`
	YLabel string    `json:"yLabel"`
	X      []float64 `json:"x"`
	Y      []float64 `json:"y"`
}

func newResults(profile, tgt string) *results {
	return &results{Profile: profile, Target: tgt, Started: time.Now(), CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
}

// add records a figure and returns it so a baseline or target can be set
// (figures are pointers so the one returned stays valid as more are added).
func (r *results) add(workload, key, name string, value float64, unit string) *figure {
	f := &figure{Workload: workload, Key: key, Name: name, Value: value, Unit: unit}
	r.Figures = append(r.Figures, f)
	return f
}

// vs sets the baseline measured in the same run.
func (f *figure) vs(name string, value float64) *figure {
	b := &baseline{Name: name, Value: value}
	if value != 0 {
		b.Ratio = f.Value / value
	}
	f.Baseline = b
	return f
}

// atMost sets a target the value must not exceed.
func (f *figure) atMost(limit float64, text string) *figure {
	f.Target = &target{Text: text, Pass: f.Value <= limit}
	return f
}

// ratioAtMost and ratioAtLeast put the target on the baseline ratio.
func (f *figure) ratioAtMost(limit float64, text string) *figure {
	f.Target = &target{Text: text, Pass: f.Baseline != nil && f.Baseline.Ratio <= limit}
	return f
}

func (f *figure) ratioAtLeast(limit float64, text string) *figure {
	f.Target = &target{Text: text, Pass: f.Baseline != nil && f.Baseline.Ratio >= limit}
	return f
}

// lookup returns the figure with key, if any.
func (r *results) lookup(key string) (figure, bool) {
	for _, f := range r.Figures {
		if f.Key == key {
			return *f, true
		}
	}
	return figure{}, false
}

func (r *results) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// PrintTable prints one line per figure: value, baseline and ratio, and
// the target with pass or MISS, so the table reads at a glance.
func (r *results) PrintTable(w io.Writer) {
	fmt.Fprintf(w, "\nminiapi bench — profile %s, target %s, %d CPUs, %s, %.0f s\n", r.Profile, r.Target, r.CPUs, r.GoVersion, r.Seconds)
	fmt.Fprintln(w, "(shared, noisy machine: compare ratios against the baselines of the same run, not absolute figures across runs)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tfigure\tvalue\tbaseline (same run)\tratio\ttarget")
	last := ""
	for _, f := range r.Figures {
		wl := f.Workload
		if wl == last {
			wl = ""
		}
		last = f.Workload
		base, ratio, tgt := "", "", ""
		if f.Baseline != nil {
			base = f.Baseline.Name + " " + formatValue(f.Baseline.Value, f.Unit)
			ratio = fmt.Sprintf("%.2f×", f.Baseline.Ratio)
		}
		if f.Target != nil {
			verdict := "pass"
			if !f.Target.Pass {
				verdict = "MISS"
			}
			tgt = verdict + " (" + f.Target.Text + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", wl, f.Name, formatValue(f.Value, f.Unit), base, ratio, tgt)
	}
	tw.Flush()
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "ERROR: %s\n", e)
	}
}

func formatValue(v float64, unit string) string {
	switch {
	case v >= 1000 && v == float64(int64(v)):
		return groupThousands(int64(v)) + " " + unit
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	default:
		return fmt.Sprintf("%.2f %s", v, unit)
	}
}

func groupThousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
