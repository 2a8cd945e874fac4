package testenv

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func clientset(t *testing.T, e *Environment) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestControllersMakeDeploymentsReady: with Controllers, a Deployment's
// pods become Ready, as they never do under envtest.
func TestControllersMakeDeploymentsReady(t *testing.T) {
	env := &Environment{Controllers: true}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	defer stop(t, env)
	c := clientset(t, env)
	ctx := context.Background()
	replicas := int32(2)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
		},
	}
	if _, err := c.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "2 ready replicas", func() bool {
		got, err := c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Status.ReadyReplicas == 2
	})
}

// TestEnvironmentsAreIsolated: two environments at once never see each
// other's objects; the zero value runs no controllers; the kubeconfig
// works; Stop removes the directory and leaves no goroutine.
func TestEnvironmentsAreIsolated(t *testing.T) {
	before := runtime.NumGoroutine()
	a, b := &Environment{}, &Environment{}
	if _, err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Start(); err != nil {
		stop(t, a)
		t.Fatal(err)
	}
	ctx := context.Background()
	ca, cb := clientset(t, a), clientset(t, b)
	if _, err := ca.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "only-a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cb.CoreV1().Namespaces().Get(ctx, "only-a", metav1.GetOptions{}); err == nil {
		t.Error("environment b sees a's namespace")
	}
	if nodes, err := ca.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err != nil || len(nodes.Items) != 0 {
		t.Errorf("without Controllers: %v, %d nodes", err, len(nodes.Items))
	}
	kc, err := clientcmd.RESTConfigFromKubeConfig(b.KubeConfig)
	if err != nil || kc.Host != b.Config.Host {
		t.Errorf("kubeconfig: %v, host %q, want %q", err, kc.Host, b.Config.Host)
	}

	dir := a.dir
	stop(t, a)
	stop(t, b)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s after Stop: %v", dir, err)
	}
	if err := a.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	waitFor(t, "the environments' goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

func stop(t *testing.T, e *Environment) {
	t.Helper()
	if err := e.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkStartStop is one environment's start, first request and stop,
// without controllers (as envtest) and with them.
func BenchmarkStartStop(b *testing.B) {
	for _, controllers := range []bool{false, true} {
		name := "api-only"
		if controllers {
			name = "controllers"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				env := &Environment{Controllers: controllers}
				cfg, err := env.Start()
				if err != nil {
					b.Fatal(err)
				}
				c, err := kubernetes.NewForConfig(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
					b.Fatal(err)
				}
				if err := env.Stop(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
