package controllers

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// BenchmarkDeploymentsAvailable measures the whole loop under load: a real
// miniapi with --pod-ready-delay=0, N Deployments of 10 replicas created
// at once by 16 clients, timed from the first create until every
// Deployment reports all 10 replicas available. Reported per run:
// seconds to converge, pods/s, and the ratio of that time to the baseline
// measured in the same run — one Deployment of 10 replicas on a fresh
// server. 1000×10 runs when MINIAPI_BENCH_FULL=1.
//
//	cd test/e2e && go test -run=^$ -bench=DeploymentsAvailable -benchtime=1x ./controllers/
func BenchmarkDeploymentsAvailable(b *testing.B) {
	sizes := []int{100}
	if os.Getenv("MINIAPI_BENCH_FULL") == "1" {
		sizes = append(sizes, 1000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("deployments=%d,replicas=10", n), func(b *testing.B) {
			for b.Loop() {
				base := converge(b, 1, 10)
				took := converge(b, n, 10)
				b.ReportMetric(took.Seconds(), "s-to-available")
				b.ReportMetric(float64(n*10)/took.Seconds(), "pods/s")
				b.ReportMetric(took.Seconds()/base.Seconds(), "x-baseline(1x10)")
			}
		})
	}
}

// converge starts a fresh server, creates n Deployments of r replicas
// and returns how long it took until all were fully available.
func converge(b *testing.B, n int, r int32) time.Duration {
	b.Helper()
	b.StopTimer()
	s := harnessStart(b)
	c := s.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b.StartTimer()
	begin := time.Now()
	createAll(ctx, b, c, n, r)
	created := time.Since(begin)
	lastLog := time.Now()
	for {
		done, err := countAvailable(ctx, c, r)
		if err != nil {
			b.Fatal(err)
		}
		if done == n {
			break
		}
		if os.Getenv("MINIAPI_BENCH_VERBOSE") == "1" && time.Since(lastLog) > time.Second {
			lastLog = time.Now()
			pods, _ := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			running, ready := 0, 0
			for i := range pods.Items {
				if pods.Items[i].Status.Phase == corev1.PodRunning {
					running++
				}
				if isReady(&pods.Items[i]) {
					ready++
				}
			}
			rss, _ := c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
			rsReady := 0
			for _, rs := range rss.Items {
				rsReady += int(rs.Status.ReadyReplicas)
			}
			b.Logf("%v: %d/%d deployments available; %d pods, %d running, %d ready, %d ready per RS status (creates took %v)",
				time.Since(begin).Round(time.Millisecond), done, n, len(pods.Items), running, ready, rsReady, created)
		}
		if ctx.Err() != nil {
			b.Fatalf("only %d of %d deployments available after 10 minutes", done, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(begin)
	b.StopTimer()
	s.Stop()
	b.StartTimer()
	return took
}

func createAll(ctx context.Context, b *testing.B, c kubernetes.Interface, n int, r int32) {
	work := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for range 16 {
		wg.Go(func() {
			for i := range work {
				d := deployment(fmt.Sprintf("load-%04d", i), "nginx", r)
				if _, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
					once.Do(func() { firstErr = err })
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
}

// countAvailable counts Deployments whose every replica is available and
// whose Available condition is True.
func countAvailable(ctx context.Context, c kubernetes.Interface, r int32) (int, error) {
	list, err := c.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range list.Items {
		d := &list.Items[i]
		av := condition(d, appsv1.DeploymentAvailable)
		if d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == r &&
			d.Status.UpdatedReplicas == r && av != nil && av.Status == corev1.ConditionTrue {
			n++
		}
	}
	return n, nil
}

func harnessStart(b *testing.B) *harness.Server {
	return harness.Start(b, "--pod-ready-delay=0", "--log-level=warn")
}
