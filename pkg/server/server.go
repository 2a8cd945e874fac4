// Package server runs one miniapi: the bbolt store, the API server on its
// listener, and the in-process controllers. cmd/miniapi is its flags and
// this package; tests and pkg/testenv run it in-process. Nothing in it is
// global, so many servers can run in one process, each with its own data
// directory, port, registry, metrics and controllers.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/miniapi/miniapi/pkg/apiserver"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/controllers"
	"github.com/miniapi/miniapi/pkg/journal"
	"github.com/miniapi/miniapi/pkg/storage"
)

// Config is one server's settings; each field is the miniapi flag of the
// same name (the README's flags table says what they mean).
type Config struct {
	DataDir string // --data-dir; created if missing
	Listen  string // --listen; port 0 picks a free port
	// WatchHistory is --watch-history; 0: 10000.
	WatchHistory int
	// JournalPasses is --journal-passes: how many reconcile passes the
	// journal keeps (/miniapi/v1/journal); 0 turns the journal off.
	JournalPasses int
	// Controllers runs the in-process controllers and simulated kubelet.
	Controllers    bool
	Nodes          int           // --nodes
	PodReadyDelay  time.Duration // --pod-ready-delay
	PodRunDuration time.Duration // --pod-run-duration
	// DiscoveryResyncPeriod is how soon the garbage collector sees a
	// resource served since start (a CRD's); 0: 30 s, as kube's.
	DiscoveryResyncPeriod time.Duration
	Profiling             bool // --profiling
	// UnsafeNoFsync writes without fsync: for throwaway test servers only.
	UnsafeNoFsync bool
	// QuotaBackendBytes is --quota-backend-bytes: past it creates and
	// updates get 500 "database space exceeded"; 0: no quota.
	QuotaBackendBytes int64
	// CompactOnStart is --compact-on-start: compact the bbolt file before
	// serving.
	CompactOnStart bool
	// EventTTL is --event-ttl: events are deleted this long after their
	// last write, as kube-apiserver's; 0: never.
	EventTTL                               time.Duration
	TLSCertFile, TLSKeyFile, TokenAuthFile string
	// ServiceClusterIPRange and ServiceNodePortRange: "" takes kube's
	// defaults.
	ServiceClusterIPRange, ServiceNodePortRange string
	// LeaderElect runs the controllers only while this process holds
	// Lease kube-system/miniapi-controllers, so that several miniapi
	// processes on one store run them once. Off in Default (one bbolt
	// process); cmd/miniapi turns it on with --etcd-servers.
	LeaderElect bool
	// LeaderElectLeaseDuration, LeaderElectRenewDeadline and
	// LeaderElectRetryPeriod are kube-controller-manager's
	// --leader-elect-* durations.
	LeaderElectLeaseDuration, LeaderElectRenewDeadline, LeaderElectRetryPeriod time.Duration
	// EtcdServers (--etcd-servers), when set, keeps every object in etcd
	// instead of bbolt; the data dir still holds the kubeconfig and
	// certificates. EtcdPrefix is --etcd-prefix ("": /miniapi).
	EtcdServers []string
	EtcdPrefix  string
	// EtcdCAFile, EtcdCertFile, EtcdKeyFile: TLS to etcd.
	EtcdCAFile, EtcdCertFile, EtcdKeyFile string
	// EtcdCompactionInterval is --etcd-compaction-interval; 0 disables.
	EtcdCompactionInterval time.Duration
	// RequestTimeout (--request-timeout) bounds every request but watches:
	// its context ends, it gets 504, and a body not received by then is cut
	// off. 0: no bound.
	RequestTimeout time.Duration
	// MinRequestTimeout (--min-request-timeout, seconds, as kube's) ends a
	// watch that asked for no timeoutSeconds after a random time between
	// it and twice it. 0: such watches last until the client leaves.
	MinRequestTimeout int
	// WatchWriteTimeout (--watch-write-timeout) closes a watch whose client
	// takes no data for this long while the server has some to send (a
	// deadline per write, so idle watches are not cut). 0: no deadline.
	WatchWriteTimeout time.Duration
	// MaxRequestsInflight (--max-requests-inflight) and
	// MaxMutatingRequestsInflight (--max-mutating-requests-inflight) cap the
	// reads and the writes served at once (watches not counted); past them
	// a request gets 429 with Retry-After. 0: no cap.
	MaxRequestsInflight, MaxMutatingRequestsInflight int
	// Logger receives the server's logs; default slog.Default().
	Logger *slog.Logger
	// BeforeControllers, if set, runs once the API serves and before the
	// controllers start, with a client configuration for the server; an
	// error fails Start. testenv installs CRDs there, so that controllers
	// which discover resources when they start (the garbage collector)
	// know them.
	BeforeControllers func(ctx context.Context, cfg *rest.Config) error
}

// DefaultQuotaBackendBytes is --quota-backend-bytes' default, etcd's: 2 GiB.
const DefaultQuotaBackendBytes = 2 << 30

// diskReserveBytes is the bbolt store's disk reserve (boltstore's
// Options.DiskReserveBytes): room for deletes on a full disk.
const diskReserveBytes = 16 << 20

// Default is the configuration miniapi starts with when no flag is given.
func Default() Config {
	return Config{
		DataDir: "./miniapi-data", Listen: "127.0.0.1:8080", WatchHistory: 10000, JournalPasses: journal.DefaultSize,
		Nodes: 3, PodReadyDelay: time.Second, PodRunDuration: 2 * time.Second, Controllers: true,
		ServiceClusterIPRange: registry.DefaultServiceClusterIPRange, ServiceNodePortRange: registry.DefaultServiceNodePortRange,
		LeaderElectLeaseDuration: 15 * time.Second, LeaderElectRenewDeadline: 10 * time.Second, LeaderElectRetryPeriod: 2 * time.Second,
		EtcdPrefix: "/miniapi", EtcdCompactionInterval: 5 * time.Minute, QuotaBackendBytes: DefaultQuotaBackendBytes,
		EventTTL:       time.Hour,
		RequestTimeout: 60 * time.Second, MinRequestTimeout: 1800, WatchWriteTimeout: 30 * time.Second, MaxRequestsInflight: 400, MaxMutatingRequestsInflight: 200,
	}
}

// limits are the API server's request limits the configuration sets.
func (c Config) limits() apiserver.Limits {
	return apiserver.Limits{
		RequestTimeout:              c.RequestTimeout,
		MinRequestTimeout:           time.Duration(c.MinRequestTimeout) * time.Second,
		WatchWriteTimeout:           c.WatchWriteTimeout,
		MaxRequestsInflight:         c.MaxRequestsInflight,
		MaxMutatingRequestsInflight: c.MaxMutatingRequestsInflight,
	}
}

// shutdownGrace bounds each step of a graceful stop.
const shutdownGrace = 3 * time.Second

// Server is one running miniapi. Start it with Start; Stop ends it.
type Server struct {
	cfg    Config
	log    *slog.Logger
	tokens *tokenFile
	store  storage.Store
	api    *apiserver.Server
	// journal records the controllers' passes; nil when it is off.
	journal *journal.Journal
	srv     *http.Server
	url     string

	served          chan error // what Serve returned
	stopControllers context.CancelFunc
	controllersDone sync.WaitGroup
	stopOnce        sync.Once
}

// Start opens the store, serves the API and starts the controllers. It
// returns once the server accepts requests; ctx bounds the start only.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	started := time.Now()
	s := &Server{cfg: cfg, log: cfg.Logger, stopControllers: func() {}, served: make(chan error, 1)}
	if s.log == nil {
		s.log = slog.Default()
	}
	if err := checkExposure(&cfg); err != nil {
		return nil, err
	}
	if err := checkLeaderElection(cfg); err != nil {
		return nil, err
	}
	var err error
	if s.tokens, err = loadTokens(cfg.TokenAuthFile); err != nil {
		return nil, err
	}
	if err := s.openStore(ctx); err != nil {
		s.closeStore()
		return nil, err
	}
	ln, err := s.listen()
	if err != nil {
		s.closeStore()
		return nil, err
	}
	go func() {
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.served <- err
		}
	}()
	s.log.Info("serving", "url", s.url, "dataDir", cfg.DataDir, "revision", s.store.Revision(),
		"startup", time.Since(started).Round(time.Millisecond))
	if err := s.beforeControllers(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	if err := s.startControllers(); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// URL is the address clients reach the server at ("http://127.0.0.1:8080").
func (s *Server) URL() string { return s.url }

// KubeconfigPath is the kubeconfig the server wrote into its data dir.
func (s *Server) KubeconfigPath() string { return filepath.Join(s.cfg.DataDir, "kubeconfig") }

// RESTConfig is a client configuration for the server, as its kubeconfig
// says (with the first token of the token file, if any).
func (s *Server) RESTConfig() (*rest.Config, error) {
	return clientConfig(s.cfg, s.url, s.tokens.first())
}

// Failed delivers the error that stopped the HTTP server on its own
// (never after Stop).
func (s *Server) Failed() <-chan error { return s.served }

// Stop stops the controllers, ends open watches, stops the HTTP server,
// each within a few seconds, and closes the store. It is safe to call
// more than once; later calls do nothing.
func (s *Server) Stop() error {
	var err error
	s.stopOnce.Do(func() {
		s.log.Info("shutting down")
		s.stopControllers()
		waitTimeout(&s.controllersDone, shutdownGrace, s.log)
		endCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := s.api.EndWatches(endCtx); err != nil {
			s.log.Warn("watches still open at shutdown", "err", err)
		}
		shutCtx, cancel2 := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel2()
		if err := s.srv.Shutdown(shutCtx); err != nil {
			s.log.Warn("closing connections", "err", err)
			_ = s.srv.Close()
		}
		err = s.store.Close()
	})
	return err
}

// openStore opens the store (bbolt, or etcd with --etcd-servers), builds the API server and creates the
// system namespaces.
func (s *Server) openStore(ctx context.Context) error {
	if err := os.MkdirAll(s.cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("creating --data-dir: %w", err)
	}
	metrics := apiserver.NewMetrics(nil)
	store, err := s.openBackend(ctx, metrics)
	if err != nil {
		return err
	}
	s.store = store
	builtin := registry.Options{ServiceClusterIPRange: s.cfg.ServiceClusterIPRange, ServiceNodePortRange: s.cfg.ServiceNodePortRange,
		SharedStore: len(s.cfg.EtcdServers) > 0}
	if s.cfg.JournalPasses > 0 {
		s.journal = journal.New(s.cfg.JournalPasses, nil)
	}
	if s.api, err = apiserver.New(apiserver.Config{
		Store: store, Builtin: builtin, Logger: s.log, Metrics: metrics, Profiling: s.cfg.Profiling, Authenticator: s.tokens.authenticator(),
		Limits: s.cfg.limits(), Journal: s.journal, EventTTL: s.cfg.EventTTL,
	}); err != nil {
		return err
	}
	if err := s.api.Bootstrap(ctx); err != nil {
		return fmt.Errorf("preparing the store (Service ranges, system namespaces): %w", err)
	}
	return nil
}

// closeStore closes the store when a start fails halfway.
func (s *Server) closeStore() {
	if s.store == nil {
		return
	}
	if err := s.store.Close(); err != nil {
		s.log.Error("closing the store", "err", err)
	}
}

// listen opens the listener (TLS when configured) and writes the
// kubeconfig that points at it.
func (s *Server) listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return nil, err
	}
	s.srv = &http.Server{Handler: s.api, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	scheme := "http"
	if s.cfg.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(s.cfg.TLSCertFile, s.cfg.TLSKeyFile)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("loading the TLS certificate: %w", err)
		}
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
		ln = tls.NewListener(ln, s.srv.TLSConfig)
		scheme = "https"
	}
	s.url = scheme + "://" + clientAddress(ln.Addr())
	if err := writeKubeconfig(s.cfg, s.url, s.tokens.first()); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

func (s *Server) beforeControllers(ctx context.Context) error {
	if s.cfg.BeforeControllers == nil {
		return nil
	}
	restCfg, err := s.RESTConfig()
	if err != nil {
		return err
	}
	return s.cfg.BeforeControllers(ctx, restCfg)
}

// startControllers runs the controllers against this server, unless
// Config.Controllers is false; with Config.LeaderElect, only while this
// server holds the controllers' Lease.
func (s *Server) startControllers() error {
	if !s.cfg.Controllers {
		return nil
	}
	restCfg, err := clientConfig(s.cfg, s.url, s.tokens.first())
	if err != nil {
		return err
	}
	restCfg.QPS, restCfg.Burst, restCfg.UserAgent = 5000, 10000, "miniapi-controllers"
	// The endpoints controller writes v1 Endpoints, which every answer
	// warns are deprecated; client-go would print that to stderr each time.
	restCfg.WarningHandler = rest.NoWarnings{}
	run := func(ctx context.Context) error {
		return controllers.Run(ctx, restCfg, controllers.Options{Nodes: s.cfg.Nodes, PodReadyDelay: s.cfg.PodReadyDelay, PodRunDuration: s.cfg.PodRunDuration,
			DiscoveryResyncPeriod: s.cfg.DiscoveryResyncPeriod, Logger: s.log, Journal: s.journal})
	}
	var e election
	if s.cfg.LeaderElect {
		if e, err = newElection(s.cfg, restCfg, s.log); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopControllers = cancel
	s.controllersDone.Add(1)
	go func() {
		defer s.controllersDone.Done()
		if s.cfg.LeaderElect {
			runElected(ctx, e, run)
			return
		}
		if err := run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Error("controllers stopped", "err", err)
		}
	}()
	return nil
}

// waitTimeout waits for wg, giving up after d.
func waitTimeout(wg *sync.WaitGroup, d time.Duration, log *slog.Logger) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		log.Warn("controllers did not stop in time")
	}
}

// clientConfig is the client configuration for this server: its URL, the
// token and the CA of its certificate.
func clientConfig(cfg Config, url, token string) (*rest.Config, error) {
	rc := &rest.Config{Host: url, BearerToken: token}
	if cfg.TLSCertFile != "" {
		ca, err := os.ReadFile(cfg.TLSCertFile)
		if err != nil {
			return nil, err
		}
		rc.TLSClientConfig = rest.TLSClientConfig{CAData: ca}
	}
	return rc, nil
}

// clientAddress is the address clients dial: the listen address, with a
// wildcard host replaced by loopback.
func clientAddress(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
