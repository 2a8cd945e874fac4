package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/miniapi/miniapi/bench/internal/miniproc"
)

const mib = 1 << 20

// sample is one reading of the server.
type sample struct {
	Seconds    float64 // since the load started
	RSSMiB     float64 // VmRSS
	HeapMiB    float64 // live heap after a GC
	Goroutines float64
	DBFileMiB  float64 // the bbolt file
	DBInUseMiB float64 // its pages in use (what the quota counts)
	Writes     int64   // load writes so far
	Events     int64   // watch events received so far
}

// read takes one sample.
func read(ctx context.Context, s *miniproc.Server, l *load, start time.Time) (sample, error) {
	smp := sample{Seconds: time.Since(start).Seconds(), Writes: l.writes.Load(), Events: l.events.Load()}
	rss, err := s.RSSMiB()
	if err != nil {
		return smp, err
	}
	heap, err := liveHeapBytes(ctx, s)
	if err != nil {
		return smp, err
	}
	m, err := metrics(ctx, s, "go_goroutines", "miniapi_storage_size_in_use_bytes")
	if err != nil {
		return smp, err
	}
	file, err := s.DBBytes()
	if err != nil {
		return smp, err
	}
	smp.RSSMiB, smp.HeapMiB, smp.Goroutines = rss, heap/mib, m["go_goroutines"]
	smp.DBFileMiB, smp.DBInUseMiB = float64(file)/mib, m["miniapi_storage_size_in_use_bytes"]/mib
	return smp, nil
}

var csvHeader = []string{"seconds", "rss_mib", "live_heap_mib", "goroutines", "db_file_mib", "db_in_use_mib", "writes", "watch_events"}

// writeCSV writes the samples, one row each.
func writeCSV(path string, samples []sample) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(csvHeader)
	for _, s := range samples {
		_ = w.Write([]string{
			strconv.FormatFloat(s.Seconds, 'f', 1, 64), mibString(s.RSSMiB), mibString(s.HeapMiB),
			strconv.FormatFloat(s.Goroutines, 'f', 0, 64), mibString(s.DBFileMiB), mibString(s.DBInUseMiB),
			strconv.FormatInt(s.Writes, 10), strconv.FormatInt(s.Events, 10),
		})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func mibString(v float64) string { return fmt.Sprintf("%.2f", v) }
