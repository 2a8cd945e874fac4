// Package deployment is the deployment controller.
package deployment

import (
	"context"
	"errors"
	"log/slog"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
)

// Config configures a Controller.
type Config struct {
	Client    kubernetes.Interface
	Informers informers.SharedInformerFactory
	Recorder  record.EventRecorder
	Logger    *slog.Logger
	Clock     clock.WithTicker
	Workers   int
}

// Controller is the deployment controller.
type Controller struct {
	cfg    Config
	driver *driver.Driver
}

// New validates cfg, fills defaults and registers the event handlers.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("deployment: Client, Informers and Recorder are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	c := &Controller{cfg: cfg}
	d, err := driver.New(driver.Config{Name: "deployment", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock})
	if err != nil {
		return nil, err
	}
	c.driver = d
	return c, nil
}

// Run runs the controller until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// Reconcile is not written yet.
func (c *Controller) Reconcile(ctx context.Context, key string) error { return nil }
