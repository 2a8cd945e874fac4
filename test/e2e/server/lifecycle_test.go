package server

import (
	"bytes"
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestRestartKeepsObjectsAndRevisions restarts the server on its data dir:
// every object comes back with the same resourceVersion, and new writes
// get higher ones.
func TestRestartKeepsObjectsAndRevisions(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)
	d, err := c.AppsV1().Deployments("default").Create(ctx, deployment("web", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.CoreV1().Pods("default").Create(ctx, pod("p", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	s.Restart()
	c = s.Client()
	d2, err := c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := c.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d2.ResourceVersion != d.ResourceVersion || d2.UID != d.UID || p2.ResourceVersion != p.ResourceVersion {
		t.Errorf("after restart: deployment rv %s uid %s, pod rv %s; before %s %s %s",
			d2.ResourceVersion, d2.UID, p2.ResourceVersion, d.ResourceVersion, d.UID, p.ResourceVersion)
	}
	after, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Items) != len(before.Items) || after.ResourceVersion != before.ResourceVersion {
		t.Errorf("namespaces after restart: %d at %s, before %d at %s", len(after.Items), after.ResourceVersion, len(before.Items), before.ResourceVersion)
	}
	p3, err := c.CoreV1().Pods("default").Create(ctx, pod("q", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rvInt(t, p3.ResourceVersion) <= rvInt(t, p.ResourceVersion) {
		t.Errorf("revision went back after restart: %s after %s", p3.ResourceVersion, p.ResourceVersion)
	}
}

// TestSIGTERMWithOpenWatch stops the server while a watch is open: the
// watch stream ends and the server exits 0 (harness.Stop checks it).
func TestSIGTERMWithOpenWatch(t *testing.T) {
	s := start(t)
	req, _ := http.NewRequest("GET", s.URL+"/api/v1/namespaces/default/pods?watch=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ended := make(chan struct{})
	go func() {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		close(ended)
	}()
	s.Stop()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the watch stream did not end at shutdown")
	}
}

// TestRefusesNonLoopbackWithoutTLS: plain HTTP without a token only on
// loopback.
func TestRefusesNonLoopbackWithoutTLS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, harness.Binary(t, "miniapi"), "--data-dir", filepath.Join(t.TempDir(), "d"), "--listen", "0.0.0.0:0")
	out, err := cmd.CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("miniapi --listen 0.0.0.0:0 without TLS: err %v, output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "refusing to listen on 0.0.0.0:0 without TLS and authentication") {
		t.Errorf("message:\n%s", out)
	}
}

// TestNamespaceLifecycle deletes a namespace (no controllers run): it turns
// Terminating, refuses new objects with 403, and goes once finalized.
func TestNamespaceLifecycle(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)
	if _, err := c.CoreV1().Namespaces().Create(ctx, namespace("doomed"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err := c.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("deleted namespace: deletionTimestamp %v phase %s", ns.DeletionTimestamp, ns.Status.Phase)
	}
	_, err = c.CoreV1().Pods("doomed").Create(ctx, pod("p", nil), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "unable to create new content in namespace doomed because it is being terminated") {
		t.Errorf("create in terminating namespace: %v", err)
	}
	ns.Spec.Finalizers = nil
	if _, err := c.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("finalized namespace: %v, want NotFound", err)
	}
}

// TestDeletionRules: a scheduled pod waits out its grace period; finalizers
// keep an object until the last is removed; dryRun stores nothing.
func TestDeletionRules(t *testing.T) {
	s := start(t)
	c := s.Client()
	ctx := ctxFor(t)
	p := pod("bound", nil)
	p.Spec.NodeName = "node-1"
	if _, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.CoreV1().Pods("default").Delete(ctx, "bound", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.CoreV1().Pods("default").Get(ctx, "bound", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 30 {
		t.Fatalf("terminating pod: %v %+v", err, got.ObjectMeta)
	}
	if err := c.CoreV1().Pods("default").Delete(ctx, "bound", metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Pods("default").Get(ctx, "bound", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("pod after grace 0 delete: %v", err)
	}

	d := deployment("fin", 1)
	d.Finalizers = []string{"example.com/hold"}
	if _, err := c.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fg := metav1.DeletePropagationForeground
	if err := c.AppsV1().Deployments("default").Delete(ctx, "fin", metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
		t.Fatal(err)
	}
	held, err := c.AppsV1().Deployments("default").Get(ctx, "fin", metav1.GetOptions{})
	if err != nil || held.DeletionTimestamp == nil || strings.Join(held.Finalizers, ",") != "example.com/hold,foregroundDeletion" {
		t.Fatalf("deployment with finalizers: %v %+v", err, held.ObjectMeta)
	}
	held.Finalizers = nil
	if _, err := c.AppsV1().Deployments("default").Update(ctx, held, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AppsV1().Deployments("default").Get(ctx, "fin", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("deployment after its last finalizer: %v", err)
	}

	dry, err := c.AppsV1().Deployments("default").Create(ctx, deployment("dry", 1), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || dry.Name != "dry" || dry.UID == "" {
		t.Fatalf("dry-run create: %v %+v", err, dry)
	}
	if _, err := c.AppsV1().Deployments("default").Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("dry-run create stored the object: %v", err)
	}
}

func rvInt(t *testing.T, rv string) int64 {
	t.Helper()
	var n int64
	for _, ch := range rv {
		if ch < '0' || ch > '9' {
			t.Fatalf("resourceVersion %q is not a number", rv)
		}
		n = n*10 + int64(ch-'0')
	}
	return n
}
