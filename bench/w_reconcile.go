package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// reconcile creates Deployments × replicas at once on a miniapi started
// with --pod-ready-delay=0 and times first create → every Deployment
// Available with all its replicas available (pods Running and Ready).
func reconcile(ctx context.Context, e *env) error {
	for _, dr := range e.sizes.Reconcile {
		if err := reconcileRound(ctx, e, dr[0], dr[1]); err != nil {
			return err
		}
	}
	return nil
}

func reconcileRound(ctx context.Context, e *env, deployments, replicas int) error {
	c, err := e.newCluster(ctx, "--pod-ready-delay=0")
	if err != nil {
		return err
	}
	ns := e.nsName(fmt.Sprintf("deploy-%d", deployments))
	defer c.close(ctx, ns)
	if _, err := c.namespace(ctx, ns); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	wait := func() {}
	if deployments == e.sizes.Reconcile[len(e.sizes.Reconcile)-1][0] {
		wait = e.profileDuring(ctx, c, "reconcile")
	}
	// The writes are counted from the server's metrics; a server that
	// does not serve them (a --kubeconfig cluster without the right)
	// still gets its time measured.
	before, scrapeErr := scrapeWrites(ctx, c)

	cpu0 := serverCPU(c)
	t0 := time.Now()
	tl, stopTimeline, err := watchPods(wctx, c, ns, t0)
	if err != nil {
		wait()
		return err
	}
	created := make(chan error, 1)
	go func() {
		_, err := parallel(wctx, 0, deployments, 16, func(ctx context.Context, i int) error {
			_, err := c.cs.AppsV1().Deployments(ns).Create(ctx, benchDeployment(ns, i, int32(replicas)), metav1.CreateOptions{})
			return err
		})
		created <- err
	}()
	err = waitAvailable(wctx, c, ns, deployments, created)
	took := time.Since(t0).Seconds()
	cpu := serverCPU(c) - cpu0
	stopTimeline()
	wait() // the profile covers the run, not the burst below
	if err != nil {
		return fmt.Errorf("%d×%d: %w", deployments, replicas, err)
	}
	label := fmt.Sprintf("%s×%d", groupThousands(int64(deployments)), replicas)
	key := fmt.Sprintf("reconcile.%dx%d", deployments, replicas)
	f := e.add("reconcile", key+".s", label+": first create → all Available", took, "s")
	switch e.variant.key {
	case "nojournal":
		if on, ok := e.res.lookup(key + ".s"); ok {
			f.vs("journal on", on.Value)
		}
	case "baseline":
		e.vsDefault(f, key+".s")
	}
	if goal := reconcileGoal(deployments); goal > 0 {
		f.atMost(goal, fmt.Sprintf("≤ %g s", goal))
	}
	addStages(e, key, tl)
	if c.own() {
		// The server's share of the machine: near 1, the round is bound
		// by CPU, and the CPU per write below says where to cut.
		e.vsDefault(e.add("reconcile", key+".server_cpu_s", label+": the server's CPU time over the round", cpu, "s").
			vs(fmt.Sprintf("the round's time × %d CPUs", runtime.NumCPU()), took*float64(runtime.NumCPU())), key+".server_cpu_s")
	}
	e.vsDefault(e.add("reconcile", key+".pods_per_s", label+": pods Running and Ready per second", float64(deployments*replicas)/took, "/s"), key+".pods_per_s")
	after, err := scrapeWrites(ctx, c)
	if scrapeErr != nil || err != nil {
		e.skip(fmt.Sprintf("reconcile%s: writes per pod: %v", e.variant.suffix(), errors.Join(scrapeErr, err)))
		return nil
	}
	return reportWrites(ctx, e, c, ns, key, label, after.since(before), deployments, replicas, took, cpu)
}

// addStages prints when the pods passed each step: where the round's
// time went.
func addStages(e *env, key string, tl *podTimeline) {
	lastCreated, lastBound, lastReady, toBind, toReady := tl.stages()
	for _, st := range []struct {
		k, name string
		v       float64
	}{
		{"last_pod_created_s", "  last pod created (since first create)", lastCreated},
		{"last_pod_bound_s", "  last pod bound to a node", lastBound},
		{"last_pod_ready_s", "  last pod Ready", lastReady},
		{"median_create_to_bind_s", "  median pod: created → bound", toBind},
		{"median_bind_to_ready_s", "  median pod: bound → Ready", toReady},
	} {
		e.vsDefault(e.add("reconcile", key+"."+st.k, st.name, st.v, "s"), key+"."+st.k)
	}
}

// reportWrites prints the writes a reconcile round made, per pod and per
// Deployment, and the time the same number of writes takes as one burst
// on the same server: the lower bound those writes imply at the store's
// batched commit rate, and the gap to it.
func reportWrites(ctx context.Context, e *env, c *cluster, ns, key, label string, w writeCounts, deployments, replicas int, took, cpu float64) error {
	pods := float64(deployments * replicas)
	n, what := w.revision, "store revisions"
	if n <= 0 { // not miniapi: count the successful requests instead
		n, what = w.requests(), "write requests"
	}
	total := e.add("reconcile", key+".writes_per_pod", fmt.Sprintf("%s: writes per pod, all (%s ÷ pods)", label, what), n/pods, "")
	e.vsDefault(total, key+".writes_per_pod")
	if e.variant.key != "baseline" {
		total.vs("write requests (2xx)", w.requests()/pods)
	}
	for _, req := range w.keys() {
		per, unit, name := pods, "/pod", "per pod"
		if perDeployment(req) {
			per, unit, name = float64(deployments), "/Deployment", "per Deployment"
		}
		k := key + ".writes." + strings.NewReplacer(" ", ".", "/", "_").Replace(req)
		e.vsDefault(e.add("reconcile", k, fmt.Sprintf("  %s %s", req, name), w.byRequest[req]/per, unit), k)
	}
	if c.own() && n > 0 {
		e.vsDefault(e.add("reconcile", key+".cpu_ms_per_write", fmt.Sprintf("  the server's CPU per write (the round's CPU ÷ %s)", what), 1000*cpu/n, "ms"), key+".cpu_ms_per_write")
	}
	e.vsDefault(e.add("reconcile", key+".conflicts_per_pod", "  updates and patches refused with 409 Conflict, per pod", w.conflicts/pods, "/pod"), key+".conflicts_per_pod")
	if n <= 0 || !c.own() {
		return nil
	}
	if _, err := c.namespace(ctx, ns+"-burst"); err != nil {
		return err
	}
	burst, err := writeBurst(ctx, c, ns+"-burst", int(n))
	if err != nil {
		return fmt.Errorf("write burst: %w", err)
	}
	rate := n / burst.Seconds()
	e.vsDefault(e.add("reconcile", key+".commit_rate", fmt.Sprintf("store's batched commit rate (%.0f ConfigMap creates, %d clients)", n, burstClients), rate, "/s"), key+".commit_rate")
	e.add("reconcile", key+".write_bound_gap", label+": first create → all Available, over the bound its writes imply", took, "s").
		vs(fmt.Sprintf("%.0f writes at that rate", n), burst.Seconds())
	explainMiss(e, label, reconcileGoal(deployments), took, cpu, n, burst.Seconds())
	return nil
}

// reconcileGoal is issue 19's goal for a round of deployments (0: none).
func reconcileGoal(deployments int) float64 {
	return map[int]float64{100: 1, 1000: 10}[deployments]
}

// explainMiss says, for a round over its goal, what bounds it on this
// machine: the writes at the store's commit rate (the disk), or the
// server's CPU for them on the machine's cores, and how far each is from
// the goal.
func explainMiss(e *env, label string, goal, took, cpu, writes, writeBound float64) {
	if goal <= 0 || took <= goal {
		return
	}
	cpus := float64(runtime.NumCPU())
	cpuBound := cpu / cpus
	e.res.Notes = append(e.res.Notes, fmt.Sprintf("reconcile %s: %.2f s against the goal of %g s. Its %.0f writes take %.2f s at the store's commit rate "+
		"(%.1f× the goal), and the server's CPU for the round, %.2f s (%.2f ms per write), takes %.2f s on %.0f CPUs (%.1f× the goal); "+
		"the goal needs at most %.2f ms of server CPU per write. --pprof-dir names where it goes.",
		label, took, goal, writes, writeBound, writeBound/goal, cpu, 1000*cpu/writes, cpuBound, cpus, cpuBound/goal, 1000*goal*cpus/writes))
}

// waitAvailable lists and watches the Deployments of ns until n of them
// are Available with every replica available. Like an informer it lists
// again and resumes when the server ends the watch (a slow watcher is cut
// off rather than allowed to slow writers).
func waitAvailable(ctx context.Context, c *cluster, ns string, n int, created <-chan error) error {
	ready := map[string]bool{}
	mark := func(d *appsv1.Deployment) {
		if available(d) {
			ready[d.Name] = true
		} else {
			delete(ready, d.Name)
		}
	}
	for {
		list, err := c.cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("%d of %d Deployments Available: %w", len(ready), n, err)
		}
		for i := range list.Items {
			mark(&list.Items[i])
		}
		if len(ready) >= n {
			return nil
		}
		w, err := c.cs.AppsV1().Deployments(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			return err
		}
		done, err := readUntilAvailable(ctx, w, ready, mark, n, created)
		w.Stop()
		if done || err != nil {
			return err
		}
	}
}

// readUntilAvailable consumes one watch; it returns false, nil when the
// watch ended before n Deployments were Available.
func readUntilAvailable(ctx context.Context, w watch.Interface, ready map[string]bool, mark func(*appsv1.Deployment), n int, created <-chan error) (bool, error) {
	for len(ready) < n {
		select {
		case err := <-created:
			if err != nil {
				return false, fmt.Errorf("creating deployments: %w", err)
			}
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil
			}
			if d, isDeploy := ev.Object.(*appsv1.Deployment); isDeploy {
				mark(d)
			}
		case <-ctx.Done():
			return false, fmt.Errorf("%d of %d Deployments Available when time ran out", len(ready), n)
		}
	}
	return true, nil
}

func available(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if d.Status.ObservedGeneration < d.Generation || d.Status.AvailableReplicas < want || d.Status.UpdatedReplicas < want {
		return false
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
