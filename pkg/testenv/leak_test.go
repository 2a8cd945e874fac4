package testenv

import (
	"context"
	"os"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStartStopStartLeaksNothing: one Environment, with controllers and a
// CRD, started, used, stopped, started again and stopped again leaves no
// goroutine, no open file and no temporary directory behind, and the
// second start is a fresh server (its own directory, an empty store).
func TestStartStopStartLeaksNothing(t *testing.T) {
	goroutines, fds := runtime.NumGoroutine(), openFiles(t)
	env := &Environment{
		Controllers: true,
		CRDs:        []*apiextensionsv1.CustomResourceDefinition{generatedCRD("things.leak.example.com", "Thing")},
	}
	var dirs []string
	for round := range 2 {
		if _, err := env.Start(); err != nil {
			t.Fatalf("start %d: %v", round+1, err)
		}
		dirs = append(dirs, env.dir)
		c := clientset(t, env)
		ctx := context.Background()
		// A ConfigMap left by the first round would be found here.
		if _, err := c.CoreV1().ConfigMaps("default").Get(ctx, "left-over", metav1.GetOptions{}); err == nil {
			t.Errorf("start %d sees the previous server's ConfigMap", round+1)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "left-over"}}
		if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("start %d: %v", round+1, err)
		}
		stop(t, env)
	}
	if dirs[0] == dirs[1] {
		t.Errorf("both starts used %s", dirs[0])
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s after Stop: %v", d, err)
		}
	}
	waitFor(t, "the environments' goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines })
	// Client connections close when the server's side does; give them
	// the same poll.
	waitFor(t, "the environments' files to close", func() bool { return openFiles(t) <= fds })
}

// openFiles counts this process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(fds)
}
