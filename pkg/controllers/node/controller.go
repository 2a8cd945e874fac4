package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
)

// Config configures a Controller.
type Config struct {
	// Count is how many simulated nodes exist (--nodes); 0 to MaxCount.
	Count     int
	Client    kubernetes.Interface
	Informers informers.SharedInformerFactory
	Logger    *slog.Logger
	Clock     clock.WithTicker
}

// Controller creates the missing simulated nodes, repairs their status and
// deletes simulated nodes beyond Count.
type Controller struct {
	count  int
	client kubernetes.Interface
	nodes  corelisters.NodeLister
	log    *slog.Logger
	clock  clock.Clock
	driver *driver.Driver
}

// New validates cfg, fills defaults, registers the node event handlers and
// queues every desired node, so missing ones are created on start.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil {
		return nil, errors.New("node: Client and Informers are required")
	}
	if cfg.Count < 0 || cfg.Count > MaxCount {
		return nil, fmt.Errorf("node: --nodes must be between 0 and %d, not %d", MaxCount, cfg.Count)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	inf := cfg.Informers.Core().V1().Nodes()
	c := &Controller{
		count:  cfg.Count,
		client: cfg.Client,
		nodes:  inf.Lister(),
		log:    cfg.Logger.With("controller", "node"),
		clock:  cfg.Clock,
	}
	d, err := driver.New(driver.Config{
		Name: "node", Reconciler: c, Workers: 1, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{inf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.EnqueueObject,
		UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) },
		DeleteFunc: d.EnqueueObject,
	}); err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	for i := 1; i <= cfg.Count; i++ {
		d.Enqueue(Name(i))
	}
	return c, nil
}

// Run runs the controller until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// index returns i for a name "miniapi-node-i" with 1 <= i <= count, or 0.
func (c *Controller) index(name string) int {
	s, ok := strings.CutPrefix(name, "miniapi-node-")
	if !ok {
		return 0
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 1 || i > c.count || Name(i) != name {
		return 0
	}
	return i
}

// Reconcile makes the node named key what it should be. Level-based: it
// compares the desired node (one of the first Count, or none) with the one
// in the cache and takes one step — create it, rewrite its status, delete a
// surplus simulated node, or nothing. A healthy node costs no write.
func (c *Controller) Reconcile(ctx context.Context, key string) error {
	have, err := c.nodes.Get(key)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	i := c.index(key)
	now := metav1.NewTime(c.clock.Now())
	switch {
	case i == 0 && have == nil:
		return nil
	case i == 0:
		if have.Annotations[SimulatedAnnotation] != "true" {
			return nil
		}
		c.log.Info("reconcile", "node", key, "desired", "absent", "observed", "present", "action", "delete surplus node")
		err := c.client.CoreV1().Nodes().Delete(ctx, key, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &have.UID}})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	case have == nil:
		return c.create(ctx, i, now)
	}
	want := desiredStatus(i, now)
	if statusCurrent(have.Status, want) {
		return nil
	}
	c.log.Info("reconcile", "node", key, "desired", "Ready", "observed", "status differs", "action", "update status")
	keepTransitionTimes(&want, have.Status)
	upd := have.DeepCopy()
	upd.Status = want
	_, err = c.client.CoreV1().Nodes().UpdateStatus(ctx, upd, metav1.UpdateOptions{})
	return err
}

// create registers node i and then posts its status, as a kubelet does
// (status is ignored on create for kinds with a status subresource).
func (c *Controller) create(ctx context.Context, i int, now metav1.Time) error {
	want := Desired(i, now)
	c.log.Info("reconcile", "node", want.Name, "desired", "Ready", "observed", "absent", "action", "create node")
	created, err := c.client.CoreV1().Nodes().Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil // the cache is behind; the add event brings us back
	}
	if err != nil {
		return err
	}
	if statusCurrent(created.Status, want.Status) {
		return nil
	}
	created.Status = want.Status
	_, err = c.client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}

// Ready reports whether node has condition Ready=True; the scheduler and
// kubelet use it.
func Ready(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
