// Package testenvbench measures pkg/testenv as a controller's test suite
// feels it: how long Start takes until the first request succeeds, how
// long a hundred environments take one after another, and how much memory
// each running environment holds. envtest, which starts etcd and
// kube-apiserver processes, publishes 5–15 s per start; there is no
// envtest here to measure it next to these.
//
//	go test -run XXX -bench . ./testenvbench/
package testenvbench

import (
	"context"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniapi/miniapi/pkg/testenv"
)

func TestMain(m *testing.M) {
	// The built-in controllers' clients would print each deprecation
	// warning the server sends (v1 Endpoints) between the figures.
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	os.Exit(m.Run())
}

// BenchmarkStartToFirstRequest is Start, then the first request a test
// makes (a Get of the default namespace; with CRDs a List of the last
// CRD's custom resources), then Stop: the API alone, as envtest serves it,
// without CRDs and with ten. Its metrics are the medians of the two
// phases; the goals are ≤ 50 ms to the first request without CRDs
// and ≤ 100 ms with ten. cpu-ms/op is the process's CPU time (user and
// system, every goroutine, start to stop) per environment: on a machine
// busy with other work it says what the wall-clock figures cannot. A first environment is started and stopped
// beforehand, since the first start in a process also parses the
// built-in schemas once.
func BenchmarkStartToFirstRequest(b *testing.B) {
	warmUp(b)
	for _, tc := range []struct {
		name string
		crds []*apiextensionsv1.CustomResourceDefinition
	}{{"no-crds", nil}, {"10-crds", tenCRDs()}} {
		b.Run(tc.name, func(b *testing.B) {
			var toFirst, toStop []time.Duration
			cpuBefore := cpuTime(b)
			for b.Loop() {
				started := time.Now()
				env := &testenv.Environment{CRDs: tc.crds}
				cfg, err := env.Start()
				if err != nil {
					b.Fatal(err)
				}
				if err := firstRequest(cfg, len(tc.crds)); err != nil {
					b.Fatal(err)
				}
				toFirst = append(toFirst, time.Since(started))
				stopping := time.Now()
				if err := env.Stop(); err != nil {
					b.Fatal(err)
				}
				toStop = append(toStop, time.Since(stopping))
			}
			b.ReportMetric(ms(cpuTime(b)-cpuBefore)/float64(len(toFirst)), "cpu-ms/op")
			b.ReportMetric(ms(median(toFirst)), "ms-to-first-request")
			b.ReportMetric(ms(median(toStop)), "ms-stop")
		})
	}
}

// Benchmark100Environments starts and stops 100 environments (the API
// alone) one after another, each answering one request: a suite of 100
// packages, each with its own environment. ns/op is the whole hundred;
// the goal is ≤ 10 s.
func Benchmark100Environments(b *testing.B) {
	warmUp(b)
	for b.Loop() {
		started := time.Now()
		for range 100 {
			env := &testenv.Environment{}
			cfg, err := env.Start()
			if err != nil {
				b.Fatal(err)
			}
			if err := firstRequest(cfg, 0); err != nil {
				b.Fatal(err)
			}
			if err := env.Stop(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(time.Since(started).Seconds(), "s-per-100")
	}
}

// firstRequest is what a test does first: read the default namespace,
// or with CRDs list the custom resources of the last one installed.
func firstRequest(cfg *rest.Config, crds int) error {
	ctx := context.Background()
	if crds == 0 {
		c, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		_, err = c.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err
	}
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = c.Resource(crdResource(crds-1)).Namespace("default").List(ctx, metav1.ListOptions{})
	return err
}

// warmUp starts and stops one environment, so that what a process does
// once (parsing the built-in schemas) is not in the figures.
func warmUp(b *testing.B) {
	b.Helper()
	env := &testenv.Environment{}
	if _, err := env.Start(); err != nil {
		b.Fatal(err)
	}
	if err := env.Stop(); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func lower(s string) string { return strings.ToLower(s) }
