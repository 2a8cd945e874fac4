package main

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
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// shutdownGrace bounds each step of a graceful stop.
const shutdownGrace = 3 * time.Second

// process is one running miniapi: the store, the API server on its
// listener, and the controllers.
type process struct {
	cfg    *config
	log    *slog.Logger
	tokens *tokenFile
	store  *boltstore.Store
	api    *apiserver.Server
	srv    *http.Server
	url    string

	stopControllers context.CancelFunc
	controllersDone sync.WaitGroup
}

// run serves until ctx ends (SIGINT/SIGTERM), then stops the controllers,
// ends open watches, stops the HTTP server and closes the store.
func run(ctx context.Context, cfg *config) error {
	started := time.Now()
	p := &process{cfg: cfg, stopControllers: func() {}}
	var err error
	if p.log, err = newLogger(cfg.LogLevel); err != nil {
		return err
	}
	if err := checkExposure(cfg); err != nil {
		return err
	}
	if p.tokens, err = loadTokens(cfg.TokenAuthFile); err != nil {
		return err
	}
	err = p.openStore(ctx)
	if p.store != nil {
		defer p.closeStore()
	}
	if err != nil {
		return err
	}
	ln, err := p.listen()
	if err != nil {
		return err
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- p.srv.Serve(ln) }()
	p.log.Info("serving", "url", p.url, "dataDir", cfg.DataDir, "revision", p.store.Revision(),
		"startup", time.Since(started).Round(time.Millisecond))
	if err := p.startControllers(); err != nil {
		p.shutdown()
		return err
	}

	select {
	case <-ctx.Done():
		p.log.Info("shutting down")
		p.shutdown()
		return nil
	case err := <-serveErr:
		p.shutdown()
		return fmt.Errorf("serving: %w", err)
	}
}

// openStore opens the database, builds the API server and creates the
// system namespaces.
func (p *process) openStore(ctx context.Context) error {
	if err := os.MkdirAll(p.cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("creating --data-dir: %w", err)
	}
	metrics := apiserver.NewMetrics(nil)
	store, err := boltstore.Open(filepath.Join(p.cfg.DataDir, "miniapi.db"), boltstore.Options{
		HistorySize: p.cfg.WatchHistory, Logger: p.log, OnCommit: metrics.ObserveCommit,
	})
	if err != nil {
		return err
	}
	p.store = store
	builtin := registry.Options{ServiceClusterIPRange: p.cfg.ServiceClusterIPRange, ServiceNodePortRange: p.cfg.ServiceNodePortRange}
	if p.api, err = apiserver.New(apiserver.Config{
		Store: store, Builtin: builtin, Logger: p.log, Metrics: metrics, Profiling: p.cfg.Profiling, Authenticator: p.tokens.authenticator(),
	}); err != nil {
		return err
	}
	if err := p.api.Bootstrap(ctx); err != nil {
		return fmt.Errorf("preparing the store (Service ranges, system namespaces): %w", err)
	}
	return nil
}

func (p *process) closeStore() {
	if err := p.store.Close(); err != nil {
		p.log.Error("closing the store", "err", err)
	}
}

// listen opens the listener (TLS when configured) and writes the
// kubeconfig that points at it.
func (p *process) listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", p.cfg.Listen)
	if err != nil {
		return nil, err
	}
	p.srv = &http.Server{Handler: p.api, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(p.log.Handler(), slog.LevelWarn)}
	scheme := "http"
	if p.cfg.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(p.cfg.TLSCertFile, p.cfg.TLSKeyFile)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("loading the TLS certificate: %w", err)
		}
		p.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
		ln = tls.NewListener(ln, p.srv.TLSConfig)
		scheme = "https"
	}
	p.url = scheme + "://" + clientAddress(ln.Addr())
	if err := writeKubeconfig(p.cfg, p.url, p.tokens.first()); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// startControllers runs the controllers against this server, unless
// --controllers=false.
func (p *process) startControllers() error {
	if !p.cfg.Controllers {
		return nil
	}
	restCfg, err := selfConfig(p.cfg, p.url, p.tokens.first())
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.stopControllers = cancel
	p.controllersDone.Add(1)
	go func() {
		defer p.controllersDone.Done()
		err := controllers.Run(ctx, restCfg, controllers.Options{Nodes: p.cfg.Nodes, PodReadyDelay: p.cfg.PodReadyDelay, Logger: p.log})
		if err != nil && !errors.Is(err, context.Canceled) {
			p.log.Error("controllers stopped", "err", err)
		}
	}()
	return nil
}

// shutdown stops the controllers, ends open watches, then stops the HTTP
// server; each step within shutdownGrace. The store is closed by run.
func (p *process) shutdown() {
	p.stopControllers()
	waitTimeout(&p.controllersDone, shutdownGrace, p.log)
	endCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := p.api.EndWatches(endCtx); err != nil {
		p.log.Warn("watches still open at shutdown", "err", err)
	}
	shutCtx, cancel2 := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel2()
	if err := p.srv.Shutdown(shutCtx); err != nil {
		p.log.Warn("closing connections", "err", err)
		_ = p.srv.Close()
	}
}

// waitTimeout waits for wg, giving up after d.
func waitTimeout(wg *sync.WaitGroup, d time.Duration, log *slog.Logger) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		log.Warn("controllers did not stop in time")
	}
}

// selfConfig is the client configuration the in-process controllers use
// to reach this server.
func selfConfig(cfg *config, url, token string) (*rest.Config, error) {
	rc := &rest.Config{Host: url, QPS: 5000, Burst: 10000, BearerToken: token, UserAgent: "miniapi-controllers"}
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

func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
}
