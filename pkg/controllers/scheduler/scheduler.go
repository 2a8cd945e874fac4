// Package scheduler is miniapi's simulated kube-scheduler: it binds every
// unscheduled pod that asks for the default scheduler to the Ready node with
// the fewest pods (ties by name), so pods spread evenly. Of the filters it
// keeps only the pod's nodeSelector and required node affinity (a
// DaemonSet pod names its node that way); it knows nothing of resources or
// taints — there are no real machines to fit.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/node"
)

// Name is the schedulerName this scheduler serves, and its event source.
const Name = "default-scheduler"

// Config configures a Scheduler.
type Config struct {
	Client    kubernetes.Interface
	Informers informers.SharedInformerFactory
	// Recorder records the Scheduled events; its source should be
	// default-scheduler.
	Recorder record.EventRecorder
	Logger   *slog.Logger
	Clock    clock.WithTicker
	// Workers is how many pods are bound concurrently; default 16 (each
	// bind waits for an fsync, and the server commits concurrent writes together).
	Workers int
}

// Scheduler binds unscheduled pods to simulated nodes.
type Scheduler struct {
	client   kubernetes.Interface
	pods     corelisters.PodLister
	nodes    corelisters.NodeLister
	recorder record.EventRecorder
	log      *slog.Logger
	clock    clock.Clock
	driver   *driver.Driver

	// mu makes choosing a node and assuming the binding one step, so two
	// workers never both see the same node as the emptiest, and the event
	// handler's counting of a binding and forgetting of its assumption
	// another.
	mu      sync.Mutex
	placed  placements
	assumed assumed
	// podsSeen tells when the pod handler has seen every pod listed.
	podsSeen cache.InformerSynced
}

// New validates cfg, fills defaults and registers the event handlers.
func New(cfg Config) (*Scheduler, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.Recorder == nil {
		return nil, errors.New("scheduler: Client, Informers and Recorder are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 64
	}
	podInf := cfg.Informers.Core().V1().Pods()
	nodeInf := cfg.Informers.Core().V1().Nodes()
	s := &Scheduler{
		client:   cfg.Client,
		pods:     podInf.Lister(),
		nodes:    nodeInf.Lister(),
		recorder: cfg.Recorder,
		log:      cfg.Logger.With("controller", "scheduler"),
		clock:    cfg.Clock,
	}
	// The pod handler counts the pods per node, so the scheduler waits for
	// it to have seen every pod, not only for the cache to hold them.
	d, err := driver.New(driver.Config{
		Name: "scheduler", Reconciler: s, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{func() bool { return s.podsSeen() }, nodeInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	s.driver = d
	onPod := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		s.observe(p)
		if needsWork(p) {
			d.EnqueueObject(p)
		}
	}
	seen, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onPod, UpdateFunc: func(_, obj any) { onPod(obj) }, DeleteFunc: s.observeDeleted,
	})
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	s.podsSeen = seen.HasSynced
	// A node that appears or turns Ready may take the pods that waited.
	if _, err := nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { s.enqueueUnscheduled() }, UpdateFunc: func(_, _ any) { s.enqueueUnscheduled() },
	}); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	return s, nil
}

// Run runs the scheduler until ctx is done.
func (s *Scheduler) Run(ctx context.Context) error { return s.driver.Run(ctx) }

// observe counts where the informer shows pod, and forgets the assumed
// binding once the pod shows one.
func (s *Scheduler) observe(p *corev1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.placed.set(p.UID, placeOf(p))
	if p.Spec.NodeName != "" {
		delete(s.assumed.byUID, p.UID)
	}
}

func (s *Scheduler) observeDeleted(obj any) {
	if gone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = gone.Obj
	}
	if p, ok := obj.(*corev1.Pod); ok {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.placed.set(p.UID, "")
	}
}

func ours(p *corev1.Pod) bool {
	return p.Spec.SchedulerName == "" || p.Spec.SchedulerName == Name
}

// needsWork: an unbound, live pod that asks for this scheduler.
func needsWork(p *corev1.Pod) bool {
	return ours(p) && p.DeletionTimestamp == nil && p.Spec.NodeName == ""
}

func (s *Scheduler) enqueueUnscheduled() {
	pods, _ := s.pods.List(labels.Everything())
	for _, p := range pods {
		if needsWork(p) {
			s.driver.EnqueueObject(p)
		}
	}
}

// Reconcile schedules the pod named key. Level-based: an unbound pod gets
// bound (and PodScheduled=True); anything else (bound, gone, terminating,
// another scheduler's) needs nothing.
func (s *Scheduler) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := s.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !needsWork(pod) {
		return nil
	}
	nodeName, total := s.choose(pod)
	if nodeName == "" {
		s.log.Info("reconcile", "pod", key, "desired", "bound", "observed", "no Ready node", "action", "wait for a node")
		if total == 0 {
			s.recorder.Event(pod, corev1.EventTypeWarning, "FailedScheduling", "no nodes available to schedule pods")
		} else {
			s.recorder.Eventf(pod, corev1.EventTypeWarning, "FailedScheduling",
				"0/%d nodes are available: %d node(s) were not ready or unschedulable.", total, total)
		}
		return nil // a node turning Ready enqueues every unscheduled pod
	}
	s.log.Info("reconcile", "pod", key, "desired", "bound", "observed", "unscheduled", "action", "bind to "+nodeName)
	if err := s.bind(ctx, pod, nodeName); err != nil {
		s.forget(pod)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("binding %s to %s: %w", key, nodeName, err)
	}
	s.recorder.Eventf(pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %s/%s to %s", ns, name, nodeName)
	return nil
}

// choose picks the node for pod and assumes the binding; total is how many
// nodes there are, schedulable or not.
func (s *Scheduler) choose(pod *corev1.Pod) (chosen string, total int) {
	nodes, _ := s.nodes.List(labels.Everything())
	fits := nodeaffinity.GetRequiredNodeAffinity(pod)
	var names []string
	for _, n := range nodes {
		if ok, _ := fits.Match(n); ok && node.Ready(n) && !n.Spec.Unschedulable && n.DeletionTimestamp == nil {
			names = append(names, n.Name)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := s.assumed.pending(func(ns, name string) (*corev1.Pod, bool) {
		p, err := s.pods.Pods(ns).Get(name)
		return p, err == nil
	})
	for _, n := range names {
		counts[n] += s.placed.perNode[n]
	}
	chosen = pickNode(names, counts)
	if chosen != "" {
		s.assumed.add(pod.UID, assumption{namespace: pod.Namespace, name: pod.Name, node: chosen})
	}
	return chosen, len(nodes)
}

func (s *Scheduler) forget(pod *corev1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.assumed.byUID, pod.UID)
}

// bind POSTs a pods/binding, as kube-scheduler does: the server sets the
// node and PodScheduled=True in one write. The pod's uid is the binding's
// precondition, so a pod deleted and made again under the same name is
// not bound by mistake.
func (s *Scheduler) bind(ctx context.Context, pod *corev1.Pod, nodeName string) error {
	return s.client.CoreV1().Pods(pod.Namespace).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: nodeName},
	}, metav1.CreateOptions{})
}
