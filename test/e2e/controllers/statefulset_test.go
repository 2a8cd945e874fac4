package controllers

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// stsWatch records, from a watch on the pods of app=web, the order pods
// were created and deleted, and every pod created while its predecessor
// was not Ready.
type stsWatch struct {
	mu         sync.Mutex
	last       map[string]*corev1.Pod
	created    []string
	deleted    []string
	violations []string
}

func watchStatefulPods(t *testing.T, c kubernetes.Interface) *stsWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	sw := &stsWatch{last: map[string]*corev1.Pod{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if pod, ok := ev.Object.(*corev1.Pod); ok {
				sw.observe(ev.Type, pod)
			}
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return sw
}

func (sw *stsWatch) observe(typ watch.EventType, pod *corev1.Pod) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	prev := sw.last[pod.Name]
	switch {
	case typ == watch.Added:
		sw.created = append(sw.created, pod.Name)
		if idx := pod.Labels["apps.kubernetes.io/pod-index"]; idx != "0" {
			pred := sw.predecessor(pod)
			if pred == nil || !isReady(pred) || pred.DeletionTimestamp != nil {
				sw.violations = append(sw.violations, pod.Name+" created before its predecessor was Ready")
			}
		}
	case typ == watch.Deleted && (prev == nil || prev.DeletionTimestamp == nil),
		typ == watch.Modified && pod.DeletionTimestamp != nil && prev != nil && prev.DeletionTimestamp == nil:
		sw.deleted = append(sw.deleted, pod.Name)
	}
	if typ == watch.Deleted {
		delete(sw.last, pod.Name)
	} else {
		sw.last[pod.Name] = pod
	}
}

// predecessor is the pod with the next lower ordinal, as last seen.
func (sw *stsWatch) predecessor(pod *corev1.Pod) *corev1.Pod {
	n, err := strconv.Atoi(pod.Labels["apps.kubernetes.io/pod-index"])
	if err != nil {
		return nil
	}
	return sw.last["web-"+strconv.Itoa(n-1)]
}

func (sw *stsWatch) snapshot() (created, deleted, violations []string) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return append([]string(nil), sw.created...), append([]string(nil), sw.deleted...), append([]string(nil), sw.violations...)
}

func webStatefulSet(image string) *appsv1.StatefulSet {
	labels := map[string]string{"app": "web"}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.StatefulSetSpec{
			ServiceName: "web", Replicas: ptr(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
			},
		},
	}
}

func TestStatefulSetOrderedStartAndRollingUpdate(t *testing.T) {
	s, c := start(t, "--pod-ready-delay=300ms")
	ctx := ctxFor(t)
	sw := watchStatefulPods(t, c)
	if _, err := c.AppsV1().StatefulSets(ns).Create(ctx, webStatefulSet("nginx:1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res := s.Run("kubectl", "", "rollout", "status", "sts/web", "--timeout=60s")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "partitioned roll out complete: 3 new pods have been updated...") {
		t.Fatalf("rollout status: %s", res)
	}
	created, _, violations := sw.snapshot()
	if strings.Join(created, ",") != "web-0,web-1,web-2" || len(violations) > 0 {
		t.Fatalf("created %v, violations %v", created, violations)
	}
	pod, err := c.CoreV1().Pods(ns).Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.Hostname != "web-1" || pod.Spec.Subdomain != "web" || pod.Labels["statefulset.kubernetes.io/pod-name"] != "web-1" ||
		!strings.HasPrefix(pod.Labels["controller-revision-hash"], "web-") {
		t.Errorf("pod identity: hostname %q subdomain %q labels %v", pod.Spec.Hostname, pod.Spec.Subdomain, pod.Labels)
	}

	res = s.Run("kubectl", "", "get", "sts")
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME READY AGE" || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "web 3/3 ") {
		t.Errorf("kubectl get sts: %s", res)
	}
	res = s.Run("kubectl", "", "get", "sts", "-o", "wide")
	if lines := strings.Split(strings.TrimSpace(res.Stdout), "\n"); len(lines) != 2 ||
		strings.Join(strings.Fields(lines[0]), " ") != "NAME READY AGE CONTAINERS IMAGES" || !strings.HasSuffix(lines[1], "nginx        nginx:1") {
		t.Errorf("kubectl get sts -o wide: %s", res)
	}

	before, _ := c.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
	if res := s.Run("kubectl", "", "set", "image", "sts/web", "nginx=nginx:2"); res.ExitCode != 0 {
		t.Fatalf("set image: %s", res)
	}
	res = s.Run("kubectl", "", "rollout", "status", "sts/web", "--timeout=60s")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "partitioned roll out complete: 3 new pods have been updated...") {
		t.Fatalf("rollout status after the update: %s", res)
	}
	_, deleted, violations := sw.snapshot()
	if strings.Join(deleted, ",") != "web-2,web-1,web-0" || len(violations) > 0 {
		t.Errorf("deleted %v (want from the highest ordinal), violations %v", deleted, violations)
	}
	after, _ := c.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
	st := after.Status
	if st.CurrentRevision != st.UpdateRevision || st.UpdateRevision == before.Status.UpdateRevision || st.UpdatedReplicas != 3 || st.ReadyReplicas != 3 {
		t.Errorf("status after the update %+v", st)
	}
	pods, _ := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	for _, p := range pods.Items {
		if p.Spec.Containers[0].Image != "nginx:2" || p.Labels["controller-revision-hash"] != st.UpdateRevision {
			t.Errorf("%s: image %s revision %s", p.Name, p.Spec.Containers[0].Image, p.Labels["controller-revision-hash"])
		}
	}
}

// The reference's sts-bad.yaml: the template labels do not match.
const badStatefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: bad
spec:
  serviceName: bad
  selector:
    matchLabels:
      app: bad
  template:
    metadata:
      labels:
        app: other
    spec:
      containers:
      - name: c
        image: nginx
`

func TestStatefulSetValidationMatchesReference(t *testing.T) {
	s, c := start(t)
	res := s.Run("kubectl", badStatefulSet, "create", "-f", "-")
	want := "The StatefulSet \"bad\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`\n"
	if res.ExitCode != 1 || res.Stdout != "" || res.Stderr != want {
		t.Errorf("create sts-bad.yaml: %s", res)
	}
	ctx := ctxFor(t)
	if _, err := c.AppsV1().StatefulSets(ns).Create(ctx, webStatefulSet("nginx"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ patch, want string }{
		{`{"spec":{"serviceName":"other"}}`, `The StatefulSet "web" is invalid: spec.serviceName: Invalid value: "other": field is immutable` + "\n"},
		{`{"spec":{"podManagementPolicy":"Parallel"}}`, `The StatefulSet "web" is invalid: spec.podManagementPolicy: Invalid value: "Parallel": field is immutable` + "\n"},
		{`{"spec":{"replicas":-1}}`, `The StatefulSet "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0` + "\n"},
	} {
		res := s.Run("kubectl", "", "patch", "sts", "web", "--type=merge", "-p", tc.patch)
		if res.ExitCode != 1 || res.Stderr != tc.want {
			t.Errorf("patch %s: %s", tc.patch, res)
		}
	}
	if res := s.Run("kubectl", "", "scale", "sts", "web", "--replicas=1"); res.ExitCode != 0 || res.Stdout != "statefulset.apps/web scaled\n" {
		t.Errorf("scale: %s", res)
	}
	eventually(t, 30*time.Second, "scale down to web-0", func() (bool, string) {
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err.Error()
		}
		var names []string
		for _, p := range pods.Items {
			names = append(names, p.Name)
		}
		return strings.Join(names, ",") == "web-0", strings.Join(names, ",")
	})
}

// dbStatefulSet is the reference's sts.yaml (section 6) with three
// replicas and both retention policies Delete. Neither is part of the template, so
// kube 1.37 names its revision db-748ff75645, as the reference records.
const dbStatefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 3
  persistentVolumeClaimRetentionPolicy:
    whenDeleted: Delete
    whenScaled: Delete
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: pg
        image: postgres
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 1Gi
`

// dbPods maps the live pods of app=db to "image revision uid".
func dbPods(t *testing.T, c kubernetes.Interface) map[string]string {
	out := map[string]string{}
	for _, p := range livePods(t, c, "db") {
		out[p.Name] = p.Spec.Containers[0].Image + " " + p.Labels["controller-revision-hash"] + " " + string(p.UID)
	}
	return out
}

// A StatefulSet's claims get kube's names, labels and retention owners, its
// revision kube's name; a partitioned update leaves the pods below the
// partition alone and re-creates them at the current revision; under
// whenScaled=Delete a scale down removes the claim once its pod is gone,
// and under whenDeleted=Delete deleting the set removes the rest (the
// garbage collector and pvc-protection working together).
func TestStatefulSetClaimsAndPartitionedUpdate(t *testing.T) {
	s, c := start(t)
	ctx := ctxFor(t)
	runOK(t, s, dbStatefulSet, "apply", "-f", "-")
	res := s.Run("kubectl", "", "rollout", "status", "sts/db", "--timeout=60s")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "partitioned roll out complete: 3 new pods have been updated...") {
		t.Fatalf("rollout status: %s", res)
	}
	const first = "db-748ff75645"
	for i := range 3 {
		name := fmt.Sprintf("data-db-%d", i)
		pvc, err := c.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("claim %s: %v", name, err)
		}
		if ref := metav1.GetControllerOf(pvc); pvc.Labels["app"] != "db" || len(pvc.Labels) != 1 || len(pvc.OwnerReferences) != 1 || ref == nil || ref.Kind != "StatefulSet" ||
			len(pvc.Finalizers) != 1 || pvc.Finalizers[0] != "kubernetes.io/pvc-protection" {
			t.Errorf("claim %s: labels %v owners %v finalizers %v", name, pvc.Labels, pvc.OwnerReferences, pvc.Finalizers)
		}
		pod, err := c.CoreV1().Pods(ns).Get(ctx, fmt.Sprintf("db-%d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v := pod.Spec.Volumes; len(v) == 0 || v[0].Name != "data" || v[0].PersistentVolumeClaim == nil || v[0].PersistentVolumeClaim.ClaimName != name ||
			pod.Labels["controller-revision-hash"] != first {
			t.Errorf("pod %s: volumes %+v labels %v", pod.Name, v, pod.Labels)
		}
	}
	revs := runOK(t, s, "", "get", "controllerrevisions", "-l", "app=db")
	if lines := strings.Split(strings.TrimSpace(revs.Stdout), "\n"); len(lines) != 2 || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), first+" statefulset.apps/db 1 ") {
		t.Errorf("kubectl get controllerrevisions:\n%s", revs.Stdout)
	}

	before := dbPods(t, c)
	runOK(t, s, "", "patch", "sts", "db", "--type=merge", "-p",
		`{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}},"template":{"spec":{"containers":[{"name":"pg","image":"postgres:17"}]}}}}`)
	res = s.Run("kubectl", "", "rollout", "status", "sts/db", "--timeout=60s")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "partitioned roll out complete: 1 new pods have been updated...") {
		t.Fatalf("rollout status after the partitioned update: %s", res)
	}
	after := dbPods(t, c)
	if after["db-0"] != before["db-0"] || after["db-1"] != before["db-1"] || !strings.HasPrefix(after["db-2"], "postgres:17 ") {
		t.Fatalf("pods before %v, after %v: only db-2 may change", before, after)
	}
	sts, _ := c.AppsV1().StatefulSets(ns).Get(ctx, "db", metav1.GetOptions{})
	if st := sts.Status; st.CurrentRevision != first || st.UpdateRevision == first || st.CurrentReplicas != 2 || st.UpdatedReplicas != 1 {
		t.Errorf("status %+v", st)
	}

	old, err := c.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runOK(t, s, "", "delete", "pod", "db-0")
	eventually(t, 30*time.Second, "a new db-0, Ready", func() (bool, string) {
		p, err := c.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.UID != old.UID && p.DeletionTimestamp == nil && isReady(p), fmt.Sprint(p.Labels)
	})
	if got := dbPods(t, c)["db-0"]; !strings.HasPrefix(got, "postgres "+first+" ") || got == before["db-0"] {
		t.Errorf("db-0 re-created as %q, want a new pod at the current revision %s", got, first)
	}

	runOK(t, s, "", "scale", "sts", "db", "--replicas=2")
	eventually(t, 30*time.Second, "data-db-2 collected after db-2 is gone", func() (bool, string) {
		pvcs, err := c.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=db"})
		if err != nil {
			return false, err.Error()
		}
		var names []string
		for _, p := range pvcs.Items {
			names = append(names, p.Name)
		}
		return strings.Join(names, ",") == "data-db-0,data-db-1", strings.Join(names, ",")
	})
	runOK(t, s, "", "delete", "sts", "db")
	eventually(t, 30*time.Second, "the claims collected after the set is deleted", func() (bool, string) {
		pvcs, err := c.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=db"})
		if err != nil {
			return false, err.Error()
		}
		return len(pvcs.Items) == 0, fmt.Sprint(len(pvcs.Items), " claims left")
	})
}
