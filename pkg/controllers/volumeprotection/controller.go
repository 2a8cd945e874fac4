// Package volumeprotection removes the protection finalizers the API
// server puts on PersistentVolumeClaims (kubernetes.io/pvc-protection) and
// PersistentVolumes (kubernetes.io/pv-protection) once a deleted one is no
// longer in use, as kube-controller-manager's pvc-protection and
// pv-protection controllers do: a claim is in use while a scheduled,
// unfinished pod mounts it; a volume while it is Bound. Without it, a
// deleted claim (and so its namespace) would stay Terminating for good.
package volumeprotection

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
)

// The finalizers the API server adds.
const (
	PVCFinalizer = "kubernetes.io/pvc-protection"
	PVFinalizer  = "kubernetes.io/pv-protection"
)

// Keys name what to look at: "pvc/<namespace>/<name>" or "pv/<name>".
const (
	pvcKeyPrefix = "pvc/"
	pvKeyPrefix  = "pv/"
)

// Config configures a Controller.
type Config struct {
	// Client removes finalizers. Required.
	Client kubernetes.Interface
	// Informers provides the claim, volume and pod caches. Required.
	Informers informers.SharedInformerFactory
	// Logger gets one line per finalizer removed; default slog.Default().
	Logger *slog.Logger
	// Clock drives the queue's delays; default the real clock.
	Clock clock.WithTicker
	// Workers is how many objects are looked at at once; default 2.
	Workers int
}

// Controller is the volume protection controller. Build it with New.
type Controller struct {
	client    kubernetes.Interface
	pvcLister corelisters.PersistentVolumeClaimLister
	pvLister  corelisters.PersistentVolumeLister
	podLister corelisters.PodLister
	log       *slog.Logger
	driver    *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil {
		return nil, errors.New("volumeprotection: Client and Informers are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	pvcInf := cfg.Informers.Core().V1().PersistentVolumeClaims()
	pvInf := cfg.Informers.Core().V1().PersistentVolumes()
	podInf := cfg.Informers.Core().V1().Pods()
	c := &Controller{
		client: cfg.Client, pvcLister: pvcInf.Lister(), pvLister: pvInf.Lister(), podLister: podInf.Lister(),
		log: cfg.Logger.With("controller", "volumeprotection"),
	}
	d, err := driver.New(driver.Config{
		Name: "volumeprotection", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{pvcInf.Informer().HasSynced, pvInf.Informer().HasSynced, podInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	for _, h := range []struct {
		inf    cache.SharedIndexInformer
		onItem func(any)
	}{{pvcInf.Informer(), c.onClaim}, {pvInf.Informer(), c.onVolume}, {podInf.Informer(), c.onPod}} {
		onItem := h.onItem
		if _, err := h.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: onItem, UpdateFunc: func(_, obj any) { onItem(obj) }, DeleteFunc: onItem,
		}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run works until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

func (c *Controller) onClaim(obj any) {
	if pvc, ok := unwrap(obj).(*corev1.PersistentVolumeClaim); ok && pvc.DeletionTimestamp != nil {
		c.driver.Enqueue(pvcKeyPrefix + pvc.Namespace + "/" + pvc.Name)
	}
}

func (c *Controller) onVolume(obj any) {
	if pv, ok := unwrap(obj).(*corev1.PersistentVolume); ok && pv.DeletionTimestamp != nil {
		c.driver.Enqueue(pvKeyPrefix + pv.Name)
	}
}

// onPod looks again at the claims a pod mounts: a pod that finishes or
// goes may release them.
func (c *Controller) onPod(obj any) {
	pod, ok := unwrap(obj).(*corev1.Pod)
	if !ok {
		return
	}
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			c.driver.Enqueue(pvcKeyPrefix + pod.Namespace + "/" + v.PersistentVolumeClaim.ClaimName)
		}
	}
}

func unwrap(obj any) any {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tomb.Obj
	}
	return obj
}

// splitKey splits a key into its kind prefix and the rest.
func splitKey(key string) (kind, rest string) {
	switch {
	case strings.HasPrefix(key, pvcKeyPrefix):
		return "pvc", strings.TrimPrefix(key, pvcKeyPrefix)
	case strings.HasPrefix(key, pvKeyPrefix):
		return "pv", strings.TrimPrefix(key, pvKeyPrefix)
	}
	return "", key
}
