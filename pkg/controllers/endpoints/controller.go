//lint:file-ignore SA1019 v1 Endpoints is deprecated in kube 1.33+; serving and publishing it is what this file is for

// Package endpoints is the endpoint controller: for every Service with a
// selector it keeps a core/v1 Endpoints object of the same name listing
// the selected pods' IPs, ready ones under addresses and the others under
// notReadyAddresses, with each Service port resolved to the pod's port.
//
// It behaves like kube-controller-manager's endpoint-controller (1.37): the
// object is labelled endpoints.kubernetes.io/managed-by: endpoint-controller,
// carries the last-change-trigger-time annotation, is laid out in kube's
// canonical subsets, and is written only when what it lists changed. An
// ExternalName Service, or one without a selector, gets none.
package endpoints

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/internal/servicepods"
)

// Name is the controller's name: its events' source and the value of its
// managed-by label.
const Name = "endpoint-controller"

// Labels and annotations the controller writes.
const (
	ManagedByLabel  = "endpoints.kubernetes.io/managed-by"
	OverCapacity    = "endpoints.kubernetes.io/over-capacity"
	maxCapacity     = 1000
	truncatedMarker = "truncated"
)

// Config configures a Controller.
type Config struct {
	// Client writes Endpoints. Required.
	Client kubernetes.Interface
	// Informers provides the Service, Pod and Endpoints caches. Required.
	Informers informers.SharedInformerFactory
	// Recorder records FailedToCreateEndpoint/FailedToUpdateEndpoint
	// events. Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile that writes; default slog.Default().
	Logger *slog.Logger
	// Clock drives the queue's delays; default the real clock.
	Clock clock.WithTicker
	// Workers is how many Services are reconciled at once; default 5.
	Workers int
}

// Controller is the endpoint controller. Its keys are Service keys
// ("namespace/name"). Build it with New.
type Controller struct {
	client    kubernetes.Interface
	services  corelisters.ServiceLister
	pods      corelisters.PodLister
	endpoints corelisters.EndpointsLister
	recorder  record.EventRecorder
	log       *slog.Logger
	triggers  servicepods.TriggerTimes
	driver    *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("endpoints: Client, Informers and Recorder are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 5
	}
	svcInf := cfg.Informers.Core().V1().Services()
	podInf := cfg.Informers.Core().V1().Pods()
	epInf := cfg.Informers.Core().V1().Endpoints()
	c := &Controller{
		client:    cfg.Client,
		services:  svcInf.Lister(),
		pods:      podInf.Lister(),
		endpoints: epInf.Lister(),
		recorder:  cfg.Recorder,
		log:       cfg.Logger.With("controller", "endpoints"),
	}
	d, err := driver.New(driver.Config{
		Name: "endpoints", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{svcInf.Informer().HasSynced, podInf.Informer().HasSynced, epInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{svcInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: d.EnqueueObject, UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) }, DeleteFunc: d.EnqueueObject,
		}},
		{podInf.Informer(), servicepods.PodHandler(c.services, d.Enqueue)},
		// Every Endpoints object is looked at once at start (a leftover of
		// a deleted Service goes), and again when someone else changes or
		// deletes it (it is put back).
		{epInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: d.EnqueueObject, UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) }, DeleteFunc: d.EnqueueObject,
		}},
	}
	for _, h := range handlers {
		if _, err := h.inf.AddEventHandler(h.h); err != nil {
			return nil, fmt.Errorf("endpoints: %w", err)
		}
	}
	return c, nil
}

// Run reconciles Services until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }
