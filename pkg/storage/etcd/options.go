package etcd

import (
	"crypto/tls"
	"log/slog"
	"time"
)

// Options configures a Store. The zero value of every field but Endpoints
// takes a default.
type Options struct {
	// Endpoints are the etcd client URLs ("http://127.0.0.1:2379").
	Endpoints []string
	// Prefix is put in front of every key; a trailing "/" is dropped.
	// Default "/miniapi".
	Prefix string
	// TLS, when set, is used to reach etcd (see TLSConfig).
	TLS *tls.Config
	// RequestTimeout bounds every call to etcd, so that an unreachable
	// etcd answers storage.ErrTimeout instead of hanging. Default 10 s.
	RequestTimeout time.Duration
	// DialTimeout bounds the first connection in Open. Default 5 s.
	DialTimeout time.Duration
	// WatcherBuffer is each watcher's channel capacity (plus the events
	// it asked to replay); a watcher whose buffer stays full for
	// SlowWatcherGrace, or which falls eight buffers behind, is ended
	// with storage.ErrWatcherTooSlow. Default 1024.
	WatcherBuffer int
	// SlowWatcherGrace is how long a full watcher buffer may stay full
	// before the watcher is ended. Default 100 ms; negative: no wait, a
	// watcher is ended as soon as an event finds its buffer full.
	SlowWatcherGrace time.Duration
	// FeedHistory is how many recent events each watched resource's
	// shared etcd watch keeps in memory, so that a Watch from a revision
	// the shared watch has passed is replayed from them instead of
	// opening an etcd watch of its own. Default 1000; negative keeps none.
	FeedHistory int
	// ProgressInterval is how often the store asks etcd for a progress
	// notification on its watches (storage.Progress events). Default 1 s;
	// negative disables.
	ProgressInterval time.Duration
	// RevisionPollInterval is how often Revision is refreshed from etcd
	// when this store does nothing else (writes by other processes).
	// Default 1 s; negative disables.
	RevisionPollInterval time.Duration
	// CompactionInterval: every interval, compact etcd to the revision
	// seen one interval before, as kube-apiserver does. 0 disables.
	CompactionInterval time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
}

const (
	defaultPrefix         = "/miniapi"
	defaultRequestTimeout = 10 * time.Second
	defaultDialTimeout    = 5 * time.Second
	defaultWatcherBuffer  = 1024
	defaultProgress       = time.Second
	defaultFeedHistory    = 1000
	defaultSlowGrace      = 100 * time.Millisecond
	defaultRevisionPoll   = time.Second
)

func (o *Options) fill() {
	if o.Prefix == "" {
		o.Prefix = defaultPrefix
	}
	for len(o.Prefix) > 0 && o.Prefix[len(o.Prefix)-1] == '/' {
		o.Prefix = o.Prefix[:len(o.Prefix)-1]
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = defaultRequestTimeout
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = defaultDialTimeout
	}
	if o.WatcherBuffer <= 0 {
		o.WatcherBuffer = defaultWatcherBuffer
	}
	if o.FeedHistory == 0 {
		o.FeedHistory = defaultFeedHistory
	}
	if o.SlowWatcherGrace == 0 {
		o.SlowWatcherGrace = defaultSlowGrace
	}
	if o.ProgressInterval == 0 {
		o.ProgressInterval = defaultProgress
	}
	if o.RevisionPollInterval == 0 {
		o.RevisionPollInterval = defaultRevisionPoll
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}
