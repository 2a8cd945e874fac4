package apiserver

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Metrics are the server's Prometheus metrics. Create them before the
// store, so the store's commit hook can feed ObserveCommit.
type Metrics struct {
	registry *prometheus.Registry

	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	watches      prometheus.Gauge
	terminated   *prometheus.CounterVec
	inflight     *prometheus.GaugeVec
	commit       prometheus.Histogram
	commitBatch  prometheus.Histogram
	revisionFunc func() int64
	// spaceFunc is the store's space accounting; nil for etcd.
	spaceFunc func() storage.SpaceStatus
}

// NewMetrics registers the metrics on reg (a new registry with the Go and
// process collectors when nil).
func NewMetrics(reg *prometheus.Registry) *Metrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	m := &Metrics{
		registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total", Help: "API requests by verb, resource and HTTP status code.",
		}, []string{"verb", "resource", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_request_duration_seconds", Help: "API request latency by verb and resource (watches: their whole life).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 60},
		}, []string{"verb", "resource"}),
		watches: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "apiserver_watches_open", Help: "Watch streams open now.",
		}),
		terminated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_terminated_watchers_total", Help: "Watchers the server closed because they did not keep up (write timeout or full buffer), by resource.",
		}, []string{"resource"}),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_current_inflight_requests", Help: "Requests being served now, by kind (readOnly, mutating); watches are not counted.",
		}, []string{"request_kind"}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "miniapi_storage_commit_duration_seconds", Help: "Time of one storage commit (transaction and fsync).",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1},
		}),
		commitBatch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "miniapi_storage_commit_batch_size", Help: "Writes that shared one storage commit.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
	}
	reg.MustRegister(m.requests, m.latency, m.watches, m.terminated, m.inflight, m.commit, m.commitBatch)
	for _, kind := range []string{kindReadOnly, kindMutating} {
		m.inflight.WithLabelValues(kind) // shown as 0 before the first request
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "miniapi_storage_revision", Help: "The store's current revision (resourceVersion).",
	}, func() float64 {
		if m.revisionFunc == nil {
			return 0
		}
		return float64(m.revisionFunc())
	}))
	m.registerSpace(reg)
	return m
}

// registerSpace registers the store's space gauges: the database size as
// kube-apiserver's apiserver_storage_size_bytes, the bytes in use, the
// quota and the NOSPACE alarm as etcd shows them. They read 0 when the
// store keeps no such accounting (etcd, whose own metrics have them).
func (m *Metrics) registerSpace(reg *prometheus.Registry) {
	gauge := func(name, help string, f func(storage.SpaceStatus) float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			if m.spaceFunc == nil {
				return 0
			}
			return f(m.spaceFunc())
		}))
	}
	gauge("apiserver_storage_size_bytes", "Size of the database file in bytes.",
		func(s storage.SpaceStatus) float64 { return float64(s.FileBytes) })
	gauge("miniapi_storage_size_in_use_bytes", "Bytes of the database in use (what --quota-backend-bytes counts).",
		func(s storage.SpaceStatus) float64 { return float64(s.InUseBytes) })
	gauge("miniapi_storage_quota_backend_bytes", "The database quota (--quota-backend-bytes); 0: none.",
		func(s storage.SpaceStatus) float64 { return float64(s.QuotaBytes) })
	gauge("miniapi_storage_space_alarm", "1 while the NOSPACE alarm is raised (database over its quota or disk full): creates and updates get 500.",
		func(s storage.SpaceStatus) float64 {
			if s.Alarm != "" {
				return 1
			}
			return 0
		})
}

// ObserveCommit records one storage commit; it fits boltstore's OnCommit.
func (m *Metrics) ObserveCommit(batchSize int, d time.Duration) {
	m.commit.Observe(d.Seconds())
	m.commitBatch.Observe(float64(batchSize))
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

func (m *Metrics) watchRevision(st storage.Store) {
	m.revisionFunc = st.Revision
	if mt, ok := st.(storage.Maintainer); ok {
		m.spaceFunc = mt.SpaceStatus
	}
}

func (m *Metrics) observeRequest(verb, resource, code string, d time.Duration) {
	m.requests.WithLabelValues(verb, resource, code).Inc()
	m.latency.WithLabelValues(verb, resource).Observe(d.Seconds())
}
