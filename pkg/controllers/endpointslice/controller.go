// Package endpointslice is the EndpointSlice controller: for every Service
// with a selector it keeps discovery.k8s.io/v1 EndpointSlices listing the
// selected pods, with kube's conditions (ready, serving, terminating), at
// most MaxEndpointsPerSlice endpoints per slice, one set of ports per
// slice.
//
// It behaves like kube-controller-manager's endpointslice-controller
// (1.37): slices are named "<service>-<random>", labelled
// endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io
// and kubernetes.io/service-name (plus service.kubernetes.io/headless for
// a Service without a cluster IP), controlled by the Service (so the
// garbage collector removes them with it), and a Service whose pods give no
// endpoints still has one empty slice. A pod on a node that does not exist
// is left out and reported. Slices are written only when what they list
// changed, and an existing slice is reused rather than replaced.
package endpointslice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/internal/servicepods"
)

// ControllerName is the value of the managed-by label on the slices this
// controller owns.
const ControllerName = "endpointslice-controller.k8s.io"

// EventSource names the controller in its events.
const EventSource = "endpoint-slice-controller"

// Config configures a Controller.
type Config struct {
	// Client writes EndpointSlices. Required.
	Client kubernetes.Interface
	// Informers provides the Service, Pod, Node and EndpointSlice caches.
	// Required.
	Informers informers.SharedInformerFactory
	// Recorder records FailedToUpdateEndpointSlices events. Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile that writes; default slog.Default().
	Logger *slog.Logger
	// Clock drives the queue's delays; default the real clock.
	Clock clock.WithTicker
	// Workers is how many Services are reconciled at once; default 5.
	Workers int
	// MaxEndpointsPerSlice caps each slice; default 100, as kube's
	// --max-endpoints-per-slice.
	MaxEndpointsPerSlice int
}

// Controller is the EndpointSlice controller. Its keys are Service keys
// ("namespace/name"). Build it with New.
type Controller struct {
	client   kubernetes.Interface
	services corelisters.ServiceLister
	pods     corelisters.PodLister
	nodes    corelisters.NodeLister
	slices   discoverylisters.EndpointSliceLister
	recorder record.EventRecorder
	log      *slog.Logger
	max      int
	triggers servicepods.TriggerTimes
	// written holds, per Service, the slices this controller wrote that
	// its cache may not show yet (see written.go).
	written *writtenSlices
	driver  *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("endpointslice: Client, Informers and Recorder are required")
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
	if cfg.MaxEndpointsPerSlice <= 0 {
		cfg.MaxEndpointsPerSlice = 100
	}
	svcInf := cfg.Informers.Core().V1().Services()
	podInf := cfg.Informers.Core().V1().Pods()
	nodeInf := cfg.Informers.Core().V1().Nodes()
	sliceInf := cfg.Informers.Discovery().V1().EndpointSlices()
	c := &Controller{
		client:   cfg.Client,
		services: svcInf.Lister(),
		pods:     podInf.Lister(),
		nodes:    nodeInf.Lister(),
		slices:   sliceInf.Lister(),
		recorder: cfg.Recorder,
		log:      cfg.Logger.With("controller", "endpointslice"),
		max:      cfg.MaxEndpointsPerSlice,
		written:  newWrittenSlices(),
	}
	d, err := driver.New(driver.Config{
		Name: "endpointslice", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{svcInf.Informer().HasSynced, podInf.Informer().HasSynced,
			nodeInf.Informer().HasSynced, sliceInf.Informer().HasSynced},
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
		{sliceInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: c.onSlice, UpdateFunc: func(_, obj any) { c.onSlice(obj) }, DeleteFunc: c.onSlice,
		}},
	}
	for _, h := range handlers {
		if _, err := h.inf.AddEventHandler(h.h); err != nil {
			return nil, fmt.Errorf("endpointslice: %w", err)
		}
	}
	return c, nil
}

// Run reconciles Services until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// onSlice queues the Service of a slice this controller manages: its own
// writes coming back, or someone else's change to put right.
func (c *Controller) onSlice(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok || s.Labels[discoveryv1.LabelManagedBy] != ControllerName || s.Labels[discoveryv1.LabelServiceName] == "" {
		return
	}
	c.driver.Enqueue(s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName])
}
