// Package kubelet is miniapi's simulated kubelet, one for every simulated
// node. No container runs: a pod bound to a node becomes Running and Ready
// once PodReadyDelay has passed, with the status, addresses and events a
// real kubelet would report; a pod being deleted is removed once
// PodReadyDelay has passed (its grace period is only an upper bound, since
// simulated containers exit at once on SIGTERM).
package kubelet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/miniapi/miniapi/pkg/controllers/internal/driver"
	"github.com/miniapi/miniapi/pkg/controllers/node"
)

// Config configures a Kubelet.
type Config struct {
	Client    kubernetes.Interface
	Informers informers.SharedInformerFactory
	// NewRecorder returns a recorder for events from source; the kubelet
	// asks for one per node ({Component: "kubelet", Host: node}).
	NewRecorder func(source corev1.EventSource) record.EventRecorder
	// PodReadyDelay is how long a pod takes from bound to Running/Ready and
	// from deletion requested to gone (--pod-ready-delay); 0 is at once.
	PodReadyDelay time.Duration
	// PodRunDuration is how long the containers of a run-to-completion pod
	// (restartPolicy Never or OnFailure) run before they exit
	// (--pod-run-duration); a pod's miniapi.dev/run-duration annotation
	// overrides it. Default DefaultPodRunDuration; negative is an error.
	PodRunDuration time.Duration
	Logger         *slog.Logger
	Clock          clock.WithTicker
	// Workers is how many pods are handled concurrently; default 16 (each
	// status write waits for an fsync; concurrent ones share it).
	Workers int
}

// Kubelet starts and stops the simulated containers of every pod bound to a
// simulated node.
type Kubelet struct {
	client      kubernetes.Interface
	pods        corelisters.PodLister
	nodes       corelisters.NodeLister
	newRecorder func(corev1.EventSource) record.EventRecorder
	delay       time.Duration
	runFor      time.Duration
	log         *slog.Logger
	clock       clock.Clock
	driver      *driver.Driver
	ips         ipPool

	mu sync.Mutex
	// recorders holds one event recorder per node name.
	recorders map[string]record.EventRecorder
	// started and stopping hold when this kubelet first saw a pod bound, and
	// first saw it terminating; the delay counts from there. An entry is
	// dropped when the pod is Running or gone.
	started, stopping map[types.UID]time.Time
	// posted holds the pods whose Running status was sent but is not yet
	// in the cache: a patch has no version check, so without it every
	// event that arrives before the kubelet's own would send it again.
	posted map[types.UID]bool
	// exited holds, per pod, the run state (see runState) a container
	// exit or restart was posted from: until the cache moves past it, the
	// same step is not sent again (it would count a restart twice).
	exited map[types.UID]string
	// running holds, per pod and run state, when this kubelet first saw
	// a container running (see runStart); dropped when the pod is gone.
	running map[types.UID]runStart
}

// New validates cfg, fills defaults and registers the event handlers.
func New(cfg Config) (*Kubelet, error) {
	if cfg.Client == nil || cfg.Informers == nil || cfg.NewRecorder == nil {
		return nil, errors.New("kubelet: Client, Informers and NewRecorder are required")
	}
	if cfg.PodReadyDelay < 0 {
		return nil, fmt.Errorf("kubelet: --pod-ready-delay must not be negative, got %s", cfg.PodReadyDelay)
	}
	if cfg.PodRunDuration < 0 {
		return nil, fmt.Errorf("kubelet: --pod-run-duration must not be negative, got %s", cfg.PodRunDuration)
	}
	if cfg.PodRunDuration == 0 {
		cfg.PodRunDuration = DefaultPodRunDuration
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
	k := &Kubelet{
		client:      cfg.Client,
		pods:        podInf.Lister(),
		nodes:       nodeInf.Lister(),
		newRecorder: cfg.NewRecorder,
		delay:       cfg.PodReadyDelay,
		runFor:      cfg.PodRunDuration,
		log:         cfg.Logger.With("controller", "kubelet"),
		clock:       cfg.Clock,
		recorders:   map[string]record.EventRecorder{},
		started:     map[types.UID]time.Time{},
		stopping:    map[types.UID]time.Time{},
		posted:      map[types.UID]bool{},
		exited:      map[types.UID]string{},
	}
	d, err := driver.New(driver.Config{
		Name: "kubelet", Reconciler: k, Workers: cfg.Workers, Logger: cfg.Logger, Clock: cfg.Clock,
		Synced: []cache.InformerSynced{podInf.Informer().HasSynced, nodeInf.Informer().HasSynced},
	})
	if err != nil {
		return nil, err
	}
	k.driver = d
	onPod := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && (needsWork(p) || k.nodeMissing(p)) {
			d.EnqueueObject(p)
		}
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    onPod,
		UpdateFunc: func(_, obj any) { onPod(obj) },
		DeleteFunc: k.onDelete,
	}); err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	// The pods of a node that is gone are orphans (see deleteOrphan).
	if _, err := nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				k.enqueuePodsOn(n.Name)
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	return k, nil
}

func (k *Kubelet) nodeMissing(p *corev1.Pod) bool {
	if p.Spec.NodeName == "" {
		return false
	}
	_, err := k.nodes.Get(p.Spec.NodeName)
	return apierrors.IsNotFound(err)
}

func (k *Kubelet) enqueuePodsOn(nodeName string) {
	pods, _ := k.pods.List(labels.Everything())
	for _, p := range pods {
		if p.Spec.NodeName == nodeName {
			k.driver.EnqueueObject(p)
		}
	}
}

// Run runs the kubelet until ctx is done.
func (k *Kubelet) Run(ctx context.Context) error { return k.driver.Run(ctx) }

// needsWork: a pod being deleted, a bound pod not yet running, or a
// running pod whose containers will exit.
func needsWork(p *corev1.Pod) bool {
	return p.DeletionTimestamp != nil || (p.Spec.NodeName != "" && p.Status.Phase == corev1.PodPending) ||
		(p.Status.Phase == corev1.PodRunning && runsToCompletion(p))
}

func (k *Kubelet) onDelete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	k.ips.release(p.UID)
	k.mu.Lock()
	delete(k.started, p.UID)
	delete(k.posted, p.UID)
	delete(k.stopping, p.UID)
	delete(k.exited, p.UID)
	delete(k.running, p.UID)
	k.mu.Unlock()
}

// Reconcile moves the pod named key one step along its life. Level-based:
//   - being deleted: once the delay (capped by the grace period) has passed
//     since the kubelet saw the deletion, delete it for good (grace 0,
//     guarded by its uid); before that, come back when it has;
//   - bound to a simulated node and Pending: once the delay has passed since
//     the kubelet saw it bound, post the Running status; before that, come
//     back when it has;
//   - Running with restartPolicy Never or OnFailure: once its run duration
//     has passed since the containers started, post their exit (see
//     completion.go); before that, come back when it has;
//   - bound to a node that does not exist: force-delete it (an orphan);
//   - anything else: nothing.
func (k *Kubelet) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := k.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if k.nodeMissing(pod) {
		return k.deleteOrphan(ctx, key, pod)
	}
	if pod.DeletionTimestamp != nil {
		return k.stop(ctx, key, pod)
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase != corev1.PodPending {
		k.forgetStart(pod.UID)
		if pod.Status.Phase == corev1.PodRunning && runsToCompletion(pod) && k.simulated(pod.Spec.NodeName) {
			return k.run(ctx, key, pod)
		}
		return nil
	}
	nd, err := k.nodes.Get(pod.Spec.NodeName)
	if apierrors.IsNotFound(err) || (err == nil && nd.Annotations[node.SimulatedAnnotation] != "true") {
		return nil // not a node this kubelet simulates (or gone a moment ago): nothing to run
	}
	if err != nil {
		return err
	}
	if k.wasPosted(pod.UID) {
		return nil // the cache has not caught up with the status sent
	}
	if wait := k.remaining(k.started, pod.UID, k.delay); wait > 0 {
		k.driver.EnqueueAfter(key, wait)
		return nil
	}
	return k.start(ctx, pod, nd)
}

// remaining returns how long until delay has passed since uid was first
// seen in m (recording now as the first sighting).
func (k *Kubelet) remaining(m map[types.UID]time.Time, uid types.UID, delay time.Duration) time.Duration {
	if delay <= 0 {
		return 0
	}
	now := k.clock.Now()
	k.mu.Lock()
	first, ok := m[uid]
	if !ok {
		first, m[uid] = now, now
	}
	k.mu.Unlock()
	return first.Add(delay).Sub(now)
}

// simulated reports whether nodeName is a node this kubelet simulates.
func (k *Kubelet) simulated(nodeName string) bool {
	nd, err := k.nodes.Get(nodeName)
	return err == nil && nd.Annotations[node.SimulatedAnnotation] == "true"
}

func (k *Kubelet) forgetStart(uid types.UID) {
	k.mu.Lock()
	delete(k.started, uid)
	delete(k.posted, uid)
	k.mu.Unlock()
}

func (k *Kubelet) wasPosted(uid types.UID) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.posted[uid]
}

// start posts the Running status and records the container events.
func (k *Kubelet) start(ctx context.Context, pod *corev1.Pod, nd *corev1.Node) error {
	hostIP := internalIP(nd)
	podIP, err := k.ips.allocate(nd.Name, nd.Spec.PodCIDR, pod.UID, func() []heldIP { return k.heldIPs(nd.Name) })
	if err != nil {
		return err
	}
	k.log.Info("reconcile", "pod", pod.Namespace+"/"+pod.Name, "node", nd.Name, "desired", "Running", "observed", "Pending", "action", "start containers, post status", "podIP", podIP)
	patch, err := statusPatch(pod.UID, pod.Status, runningStatus(pod, hostIP, podIP, metav1.NewTime(k.clock.Now())))
	if err != nil {
		return err
	}
	if _, err := k.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("posting status of %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	k.mu.Lock()
	delete(k.started, pod.UID)
	k.posted[pod.UID] = true
	k.mu.Unlock()
	rec := k.recorder(nd.Name)
	for _, c := range pod.Spec.Containers {
		ref := containerRef(pod, c.Name)
		rec.Eventf(ref, corev1.EventTypeNormal, "Pulled", "Container image %q already present on machine", c.Image)
		rec.Eventf(ref, corev1.EventTypeNormal, "Created", "Created container: %s", c.Name)
		rec.Eventf(ref, corev1.EventTypeNormal, "Started", "Started container %s", c.Name)
	}
	return nil
}

// stop deletes a terminating pod once its simulated containers have exited.
func (k *Kubelet) stop(ctx context.Context, key string, pod *corev1.Pod) error {
	delay := k.delay
	if g := pod.DeletionGracePeriodSeconds; g != nil && time.Duration(*g)*time.Second < delay {
		delay = time.Duration(*g) * time.Second
	}
	if pod.Spec.NodeName == "" {
		delay = 0 // nothing ever ran
	}
	k.mu.Lock()
	_, seen := k.stopping[pod.UID]
	k.mu.Unlock()
	if !seen && pod.Spec.NodeName != "" {
		rec := k.recorder(pod.Spec.NodeName)
		for _, c := range pod.Spec.Containers {
			rec.Eventf(containerRef(pod, c.Name), corev1.EventTypeNormal, "Killing", "Stopping container %s", c.Name)
		}
	}
	if wait := k.remaining(k.stopping, pod.UID, delay); wait > 0 {
		if !seen {
			k.log.Info("reconcile", "pod", key, "desired", "gone", "observed", "terminating", "action", "stop containers, wait "+wait.String())
		}
		k.driver.EnqueueAfter(key, wait)
		return nil
	}
	k.mu.Lock()
	k.stopping[pod.UID] = k.clock.Now() // so a retry records no second Killing
	k.mu.Unlock()
	k.log.Info("reconcile", "pod", key, "desired", "gone", "observed", "terminating, containers exited", "action", "delete with grace 0")
	uid := pod.UID
	err := k.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64),
		Preconditions:      &metav1.Preconditions{UID: &uid},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone already, or a new pod of the same name
	}
	return err
}

// deleteOrphan force-deletes a pod bound to a node that no longer exists
// (as after restarting with fewer --nodes), as kube-controller-manager's
// pod garbage collector does: no kubelet is left to stop it, and its
// owner will replace it on a live node. The cache's "no such node" is
// confirmed with the API first.
func (k *Kubelet) deleteOrphan(ctx context.Context, key string, pod *corev1.Pod) error {
	_, err := k.client.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
	if err == nil {
		return nil // the cache is behind; the node exists
	}
	if !apierrors.IsNotFound(err) {
		return err
	}
	k.log.Info("reconcile", "pod", key, "desired", "on a live node or gone", "observed", "node "+pod.Spec.NodeName+" does not exist", "action", "force delete orphaned pod")
	uid := pod.UID
	err = k.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64),
		Preconditions:      &metav1.Preconditions{UID: &uid},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

func (k *Kubelet) recorder(nodeName string) record.EventRecorder {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, ok := k.recorders[nodeName]
	if !ok {
		r = k.newRecorder(corev1.EventSource{Component: "kubelet", Host: nodeName})
		k.recorders[nodeName] = r
	}
	return r
}

// containerRef points an event at one container of pod, as the kubelet's
// events do (fieldPath spec.containers{name}).
func containerRef(pod *corev1.Pod, container string) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
		ResourceVersion: pod.ResourceVersion, FieldPath: fmt.Sprintf("spec.containers{%s}", container),
	}
}

func internalIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// heldIPs lists the pod IPs already in use on nodeName, from the cache.
func (k *Kubelet) heldIPs(nodeName string) []heldIP {
	pods, _ := k.pods.List(labels.Everything())
	var out []heldIP
	for _, p := range pods {
		if p.Spec.NodeName == nodeName && p.Status.PodIP != "" {
			out = append(out, heldIP{uid: p.UID, ip: p.Status.PodIP})
		}
	}
	return out
}
