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
	"github.com/miniapi/miniapi/pkg/controllers"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// shutdownGrace bounds each step of a graceful stop.
const shutdownGrace = 3 * time.Second

// run serves until ctx ends (SIGINT/SIGTERM), then stops the controllers,
// ends open watches, stops the HTTP server and closes the store.
func run(ctx context.Context, cfg *config) error {
	started := time.Now()
	log, err := newLogger(cfg.LogLevel)
	if err != nil {
		return err
	}
	if err := checkExposure(cfg); err != nil {
		return err
	}
	tokens, err := loadTokens(cfg.TokenAuthFile)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("creating --data-dir: %w", err)
	}

	metrics := apiserver.NewMetrics(nil)
	store, err := boltstore.Open(filepath.Join(cfg.DataDir, "miniapi.db"), boltstore.Options{
		HistorySize: cfg.WatchHistory, Logger: log, OnCommit: metrics.ObserveCommit,
	})
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("closing the store", "err", err)
		}
	}()

	api, err := apiserver.New(apiserver.Config{Store: store, Logger: log, Metrics: metrics, Profiling: cfg.Profiling})
	if err != nil {
		return err
	}
	if err := api.Bootstrap(ctx); err != nil {
		return fmt.Errorf("creating the system namespaces: %w", err)
	}

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	var handler http.Handler = api
	if tokens != nil {
		handler = tokens.authenticate(handler)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	scheme := "http"
	if cfg.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
		if err != nil {
			ln.Close()
			return fmt.Errorf("loading the TLS certificate: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
		ln = tls.NewListener(ln, srv.TLSConfig)
		scheme = "https"
	}
	url := scheme + "://" + clientAddress(ln.Addr())
	if err := writeKubeconfig(cfg, url, tokens.first()); err != nil {
		ln.Close()
		return err
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("serving", "url", url, "dataDir", cfg.DataDir, "revision", store.Revision(), "startup", time.Since(started).Round(time.Millisecond))

	ctrlCtx, stopControllers := context.WithCancel(context.Background())
	var ctrlDone sync.WaitGroup
	if cfg.Controllers {
		restCfg, err := selfConfig(cfg, url, tokens.first())
		if err != nil {
			stopControllers()
			return err
		}
		ctrlDone.Add(1)
		go func() {
			defer ctrlDone.Done()
			err := controllers.Run(ctrlCtx, restCfg, controllers.Options{Nodes: cfg.Nodes, PodReadyDelay: cfg.PodReadyDelay})
			if err != nil && !errors.Is(err, context.Canceled) {
				log.Error("controllers stopped", "err", err)
			}
		}()
	}

	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-serveErr:
		stopControllers()
		return fmt.Errorf("serving: %w", err)
	}

	stopControllers()
	waitTimeout(&ctrlDone, shutdownGrace, log)
	endCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := api.EndWatches(endCtx); err != nil {
		log.Warn("watches still open at shutdown", "err", err)
	}
	shutCtx, cancel2 := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel2()
	if err := srv.Shutdown(shutCtx); err != nil {
		log.Warn("closing connections", "err", err)
		_ = srv.Close()
	}
	return nil
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
