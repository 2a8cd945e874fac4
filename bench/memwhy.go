package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// The memory goals count RSS, which is two different things: the
// binary's pages the process has touched (file-backed: the kernel shares
// them with every process running the same binary and drops them when
// memory is short; with data, bbolt's mapped file too) and its anonymous
// memory (heap, stacks). A note for an RSS over its goal says how much of
// each, and, for a loaded server, what holds the live heap, so the table
// says how far off the goal is and why.

// explainIdleMiss notes an idle RSS over its goal.
func explainIdleMiss(e *env, rss, anon, goal float64) {
	if rss <= goal {
		return
	}
	file := rss - anon
	e.res.Notes = append(e.res.Notes, fmt.Sprintf("memory%s idle: RSS %.1f MiB against the goal of %g MiB. %.1f MiB of it is the pages of the "+
		"%s binary the process has touched (file-backed), %.1f MiB its anonymous memory (heap, stacks)%s. "+
		"The goal needs at most %.1f MiB of the binary resident with that heap.",
		e.variant.suffix(), rss, goal, file, binarySize(e.miniapiBin()), anon, withinGoal(anon, goal), max(0, goal-anon)))
}

// explainLoadedMiss notes the RSS of a loaded server over its goal, with
// what holds its live heap (read from the server's heap profile).
func explainLoadedMiss(ctx context.Context, e *env, srv *server, label string, rss, anon, goal float64) {
	if rss <= goal {
		return
	}
	live, holders, err := heapHolders(ctx, srv)
	if err != nil {
		e.log.Warn("heap profile", "err", err)
		return
	}
	var held []string
	for _, h := range holders {
		held = append(held, fmt.Sprintf("%s %.1f MB", h.name, h.bytes/1e6))
	}
	file := rss - anon
	e.res.Notes = append(e.res.Notes, fmt.Sprintf("memory%s %s: RSS %.0f MiB against the goal of %g MiB. %.1f MiB of it is file-backed (the binary's pages, and the database file's that bbolt maps), "+
		"%.0f MiB anonymous memory for a live heap of %.0f MB: Go's collector lets the heap grow to about twice what is live before "+
		"it collects (GOGC=100) and gives freed pages back slowly. The live heap by what holds it (heap profile after a collection): %s. "+
		"The goal needs the anonymous memory under %.0f MiB, a live heap of about half that.",
		e.variant.suffix(), label, rss, goal, file, anon, live/1e6, strings.Join(held, ", "), max(0, goal-file)))
}

func withinGoal(anon, goal float64) string {
	if anon <= goal {
		return ", within the goal by itself"
	}
	return ""
}

func binarySize(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "server"
	}
	return fmt.Sprintf("%.0f MB", float64(fi.Size())/1e6)
}

// heapHolder is a share of the live heap.
type heapHolder struct {
	name  string
	bytes float64
}

// holderFrames name what holds the memory a stack allocated: the first
// frame, from the allocation up, that one of them prefixes.
var holderFrames = []struct{ prefix, holder string }{
	{"k8s.io/client-go/tools/cache.", "the controllers' informer caches"},
	{"k8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive", "the controllers' informer caches"},
	{"github.com/miniapi/miniapi/pkg/storage/boltstore.", "the store's watch history and watcher buffers"},
	{"github.com/miniapi/miniapi/pkg/apiserver/revcache.", "the API's cache of decoded objects"},
	{"github.com/miniapi/miniapi/pkg/apiserver.(*wireCache)", "the API's cache of encoded objects"},
}

// heapHolders reads the server's heap profile after a collection and
// sums its live bytes by holder, largest first, the rest ("other") last.
func heapHolders(ctx context.Context, srv *server) (float64, []heapHolder, error) {
	raw, err := srv.Get(ctx, "/debug/pprof/heap?gc=1")
	if err != nil {
		return 0, nil, err
	}
	p, err := profile.Parse(bytes.NewReader(raw))
	if err != nil {
		return 0, nil, err
	}
	return liveByHolder(p)
}

// liveByHolder sums a heap profile's live bytes by holder, largest first,
// the rest ("other") last; holders with nothing live are left out.
func liveByHolder(p *profile.Profile) (float64, []heapHolder, error) {
	vi := slices.IndexFunc(p.SampleType, func(st *profile.ValueType) bool { return st.Type == "inuse_space" })
	if vi < 0 {
		return 0, nil, fmt.Errorf("the heap profile has no inuse_space")
	}
	sums := map[string]float64{}
	var total float64
	for _, s := range p.Sample {
		v := float64(s.Value[vi])
		total += v
		sums[holderOf(s)] += v
	}
	var out []heapHolder
	for name, b := range sums {
		if name != "other" && b > 0 {
			out = append(out, heapHolder{name, b})
		}
	}
	slices.SortFunc(out, func(a, b heapHolder) int { return int(b.bytes - a.bytes) })
	return total, append(out, heapHolder{"other", sums["other"]}), nil
}

func holderOf(s *profile.Sample) string {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			for _, f := range holderFrames {
				if strings.HasPrefix(line.Function.Name, f.prefix) {
					return f.holder
				}
			}
		}
	}
	return "other"
}
