// Package testenv runs a miniapi server inside a Go test, in place of
// controller-runtime's envtest: fields and methods are named as envtest
// names them where the two overlap, so a test swaps the import and keeps
// its code. It starts in milliseconds (no binaries to download or exec),
// many environments run at once in one process (each on its own loopback
// port, in its own temporary directory), and with Controllers set the
// built-in controllers and the simulated kubelet run too: Deployments get
// Ready pods and namespaces finish deleting.
//
//	env := &testenv.Environment{
//		Controllers:       true,
//		CRDDirectoryPaths: []string{"config/crd/bases"},
//	}
//	cfg, err := env.Start()
//	...
//	defer env.Stop()
package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/miniapi/miniapi/pkg/server"
)

// Environment is one test API server. The zero value serves the API alone
// (as envtest does); set Controllers for the built-in controllers.
type Environment struct {
	// Config is the client configuration for the running server, set by
	// Start (as envtest's, with envtest's QPS 1000 and Burst 2000).
	Config *rest.Config
	// KubeConfig is a kubeconfig for the running server, set by Start.
	KubeConfig []byte
	// ControlPlaneStartTimeout bounds Start; default 20s.
	ControlPlaneStartTimeout time.Duration
	// ControlPlaneStopTimeout is unused: Stop takes a few seconds at most.
	ControlPlaneStopTimeout time.Duration

	// Controllers runs the built-in controllers (deployment, replicaset,
	// job, garbage collector, namespace ...) and the simulated kubelet.
	Controllers bool
	// Nodes is how many simulated Nodes there are; default 1.
	Nodes int
	// PodReadyDelay is how long a pod takes to become Ready; default 0.
	PodReadyDelay time.Duration
	// PodRunDuration is how long a run-to-completion pod runs; default 0
	// takes the server's 2s.
	PodRunDuration time.Duration
	// Logger receives the server's logs; default: discarded.
	Logger *slog.Logger

	// CRDs are CustomResourceDefinitions to install. After Start it holds
	// every CRD installed, those read from CRDDirectoryPaths included (as
	// envtest's does).
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// CRDDirectoryPaths are directories (or single files) whose .yaml,
	// .yml and .json files hold CRDs, one or more documents a file, as
	// envtest reads them: documents that are not CRDs are skipped.
	CRDDirectoryPaths []string
	// ErrorIfCRDPathMissing makes a missing CRDDirectoryPaths entry an
	// error; without it the path is skipped.
	ErrorIfCRDPathMissing bool

	srv *server.Server
	dir string
}

// Start starts the server, installs the CRDs and returns the server's
// client configuration once every CRD is Established and its resources
// are served. The server keeps its data without fsync in a temporary
// directory that Stop removes.
func (e *Environment) Start() (*rest.Config, error) {
	if e.srv != nil {
		return nil, errors.New("testenv: Start called twice without Stop")
	}
	fromFiles, err := readCRDPaths(e.CRDDirectoryPaths, e.ErrorIfCRDPathMissing)
	if err != nil {
		return nil, err // before the server starts: nothing to stop
	}
	crds := mergeCRDs(e.CRDs, fromFiles)
	timeout := e.ControlPlaneStartTimeout
	if timeout == 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "miniapi-testenv-")
	if err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	cfg := e.serverConfig(dir)
	// The CRDs go in before the controllers start, so that the garbage
	// collector, which discovers resources once when it starts, collects
	// the dependents of custom resources too.
	cfg.BeforeControllers = func(ctx context.Context, rc *rest.Config) error {
		return installCRDs(ctx, withEnvtestLimits(rc), crds)
	}
	srv, err := server.Start(ctx, cfg)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("testenv: starting the server: %w", err)
	}
	e.srv, e.dir = srv, dir
	if e.Config, err = srv.RESTConfig(); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	e.Config = withEnvtestLimits(e.Config)
	if e.KubeConfig, err = os.ReadFile(srv.KubeconfigPath()); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	e.CRDs = crds
	return e.Config, nil
}

// withEnvtestLimits sets envtest's client limits on cfg: client-go's
// default (5 requests a second) would make a test's bursts, installing
// ten CRDs among them, take seconds.
func withEnvtestLimits(cfg *rest.Config) *rest.Config {
	cfg.QPS, cfg.Burst = 1000, 2000
	return cfg
}

func (e *Environment) serverConfig(dir string) server.Config {
	cfg := server.Default()
	cfg.DataDir = dir
	cfg.Listen = "127.0.0.1:0"
	cfg.UnsafeNoFsync = true
	cfg.Controllers = e.Controllers
	cfg.Nodes = max(e.Nodes, 1)
	cfg.PodReadyDelay = e.PodReadyDelay
	// A test installs its CRDs after start and expects the garbage
	// collector to own their objects soon, not after kube's 30 s.
	cfg.DiscoveryResyncPeriod = time.Second
	if e.PodRunDuration > 0 {
		cfg.PodRunDuration = e.PodRunDuration
	}
	cfg.Logger = e.Logger
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return cfg
}

// Stop stops the server and removes its directory. Calling it on an
// environment that is not running does nothing.
func (e *Environment) Stop() error {
	if e.srv == nil {
		return nil
	}
	err := e.srv.Stop()
	e.srv = nil
	return errors.Join(err, os.RemoveAll(e.dir))
}
