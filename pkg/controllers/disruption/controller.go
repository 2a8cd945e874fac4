// Package disruption is the PodDisruptionBudget controller: it counts the
// pods each budget selects and writes the budget's status
// (currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed and
// the DisruptionAllowed condition), which the API server's pods/eviction
// reads to allow or refuse an eviction.
//
// It follows kube-controller-manager's disruption controller: an integer
// minAvailable counts the selected pods; a percentage, or maxUnavailable,
// is taken of the replicas their controllers want (ReplicaSet, the
// Deployment above it, ReplicationController, StatefulSet); pods an
// eviction has just been allowed to remove (status.disruptedPods) are not
// counted as healthy for two minutes.
package disruption

import (
	"context"
	"errors"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
)

// Config configures a Controller.
type Config struct {
	// Client writes budget status and reads the controllers of pods the
	// caches do not hold (ReplicationControllers, StatefulSets). Required.
	Client kubernetes.Interface
	// Informers provides the budget, pod, ReplicaSet and Deployment
	// caches. Required.
	Informers informers.SharedInformerFactory
	// Recorder records NoPods, UnmanagedPods and
	// CalculateExpectedPodCountFailed events. Required.
	Recorder record.EventRecorder
	// Logger gets one line per reconcile; default slog.Default().
	Logger *slog.Logger
	// Clock tells when a disrupted pod's entry expires and stamps
	// condition transitions; default the real clock.
	Clock clock.WithTicker
	// Workers is how many budgets are reconciled at once; default 2.
	Workers int
}

// Controller is the disruption controller. Build it with New.
type Controller struct {
	client    kubernetes.Interface
	pdbLister policylisters.PodDisruptionBudgetLister
	podLister corelisters.PodLister
	rsLister  appslisters.ReplicaSetLister
	depLister appslisters.DeploymentLister
	recorder  record.EventRecorder
	log       *slog.Logger
	clock     clock.WithTicker
	driver    *driver.Driver
}

// New validates cfg, fills defaults and registers the informer handlers.
// Call it before cfg.Informers is started.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("disruption: Client, Informers and Recorder are required")
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
	pdbInf := cfg.Informers.Policy().V1().PodDisruptionBudgets()
	podInf := cfg.Informers.Core().V1().Pods()
	rsInf := cfg.Informers.Apps().V1().ReplicaSets()
	depInf := cfg.Informers.Apps().V1().Deployments()
	c := &Controller{
		client:    cfg.Client,
		pdbLister: pdbInf.Lister(),
		podLister: podInf.Lister(),
		rsLister:  rsInf.Lister(),
		depLister: depInf.Lister(),
		recorder:  cfg.Recorder,
		log:       cfg.Logger.With("controller", "disruption"),
		clock:     cfg.Clock,
	}
	d, err := driver.New(driver.Config{
		Name: "disruption", Reconciler: c, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{pdbInf.Informer().HasSynced, podInf.Informer().HasSynced,
			rsInf.Informer().HasSynced, depInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	c.driver = d
	if _, err := pdbInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.EnqueueObject,
		UpdateFunc: func(_, obj any) { d.EnqueueObject(obj) },
		DeleteFunc: d.EnqueueObject,
	}); err != nil {
		return nil, err
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onPod,
		UpdateFunc: func(oldObj, obj any) { c.onPod(oldObj); c.onPod(obj) },
		DeleteFunc: c.onPod,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles budgets until ctx is done.
func (c *Controller) Run(ctx context.Context) error { return c.driver.Run(ctx) }

// onPod enqueues every budget of the pod's namespace that selects it.
func (c *Controller) onPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		tomb, isTomb := obj.(cache.DeletedFinalStateUnknown)
		if !isTomb {
			return
		}
		if pod, ok = tomb.Obj.(*corev1.Pod); !ok {
			return
		}
	}
	for _, pdb := range c.budgetsFor(pod) {
		c.driver.Enqueue(pod.Namespace + "/" + pdb.Name)
	}
}

// budgetsFor are the budgets whose selector selects pod; an empty or
// invalid selector selects nothing.
func (c *Controller) budgetsFor(pod *corev1.Pod) []*policyv1.PodDisruptionBudget {
	all, err := c.pdbLister.PodDisruptionBudgets(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*policyv1.PodDisruptionBudget
	for _, pdb := range all {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	return out
}
