//go:build unix

package apiserver

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkStuckWatchers measures the heap that watchers whose clients
// stop reading hold, on 2,000 pods of about 2 KiB: the heap in use before
// they open, once they are stuck on their initial state, and after 20,000
// updates each of them should get; watchers=0 is the same run without
// them. The write timeout is long so that they stay open while measured.
// Run with -benchtime=1x: one iteration is one whole run.
func BenchmarkStuckWatchers(b *testing.B) {
	for _, watchers := range []int{0, 50} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			for b.Loop() {
				stuckWatchersRun(b, watchers)
			}
		})
	}
}

func stuckWatchersRun(b *testing.B, watchers int) {
	ts := startTestServerWith(b, Config{Limits: Limits{WatchWriteTimeout: 10 * time.Minute}})
	const pods, updates = 2000, 20000
	benchPods(b, ts, pods, updates)
	base := heapInuse()

	for range watchers {
		dialStuck(b, ts.url, "/api/v1/namespaces/default/pods?watch=true")
	}
	waitOpenWatches(b, ts, float64(watchers))
	time.Sleep(2 * time.Second) // let every watcher write until it blocks
	open := heapInuse()

	began := time.Now()
	benchPods(b, ts, 0, updates)
	b.ReportMetric(float64(time.Since(began).Microseconds())/updates, "µs/update")
	time.Sleep(time.Second) // let fan-out finish
	updated := heapInuse()

	const mib = 1 << 20
	b.ReportMetric(float64(base)/mib, "heap-base-MiB")
	b.ReportMetric(float64(open)/mib, "heap-open-MiB")
	b.ReportMetric(float64(updated)/mib, "heap-updated-MiB")
	if watchers > 0 {
		b.ReportMetric(float64(open-base)/mib/float64(watchers), "MiB/watcher-open")
		b.ReportMetric(float64(updated-base)/mib/float64(watchers), "MiB/watcher-updated")
	}
}

// benchPods creates n pods of about 2 KiB when n > 0, else updates the
// existing ones updates times in all, from 8 goroutines.
func benchPods(b *testing.B, ts *testServer, n, updates int) {
	const path = "/api/v1/namespaces/default/pods"
	note := strings.Repeat("n", 1500)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			if n > 0 {
				for i := w; i < n; i += 8 {
					body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-%04d","labels":{"app":"bench"},"annotations":{"note":%q}},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}`, i, note)
					if code, _, out := ts.do(b, "POST", path, "application/json", body); code != 201 {
						b.Error(out)
						return
					}
				}
				return
			}
			for i := w; i < updates; i += 8 {
				body := fmt.Sprintf(`{"metadata":{"labels":{"round":"r%d"}}}`, i)
				if code, _, out := ts.do(b, "PATCH", fmt.Sprintf("%s/p-%04d", path, i%2000), "application/merge-patch+json", body); code != 200 {
					b.Error(out)
					return
				}
			}
		})
	}
	wg.Wait()
}

// heapInuse is the heap in use after a collection.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
