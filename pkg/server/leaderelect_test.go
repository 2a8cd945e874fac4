package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Short durations for tests. A Lease counts whole seconds, so 2 s is the
// shortest lease that leaves the renew deadline room.
const (
	testLease = 2 * time.Second
	testRenew = time.Second
	testRetry = 200 * time.Millisecond
)

// leaders counts the candidates running at once, across a test.
type leaders struct{ now, most atomic.Int32 }

// candidate is one runElected in the background, as one miniapi
// process's controllers would be.
type candidate struct {
	name    string
	runs    atomic.Int32 // how many times it has started leading
	started atomic.Int64 // when it last started leading (UnixNano)
	stop    context.CancelFunc
	done    chan struct{}
}

// startCandidate campaigns against the API server s; keepLease makes
// its stop leave the Lease held, as a process that dies does.
func startCandidate(t *testing.T, s *Server, name string, keepLease bool, l *leaders) *candidate {
	t.Helper()
	rc, err := s.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	e := election{client: rc, identity: name, leaseDuration: testLease, renewDeadline: testRenew, retryPeriod: testRetry,
		keepLeaseOnStop: keepLease, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	c := &candidate{name: name, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		runElected(ctx, e, func(ctx context.Context) error {
			if n := l.now.Add(1); n > l.most.Load() {
				l.most.Store(n)
			}
			c.started.Store(time.Now().UnixNano())
			c.runs.Add(1)
			<-ctx.Done()
			l.now.Add(-1)
			return ctx.Err()
		})
	}()
	return c
}

// Stop ends the candidate and waits for runElected to return.
func (c *candidate) Stop(t *testing.T) {
	t.Helper()
	c.stop()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("candidate %s did not stop", c.name)
	}
}

// takeover stops the leader old and returns how long next took to start
// leading after.
func takeover(t *testing.T, old, next *candidate) time.Duration {
	t.Helper()
	runsBefore := next.runs.Load()
	stopped := time.Now()
	old.Stop(t)
	waitFor(t, next.name+" to lead", func() bool { return next.runs.Load() > runsBefore })
	return time.Unix(0, next.started.Load()).Sub(stopped)
}

func leaseOf(t *testing.T, c kubernetes.Interface) *coordinationv1.Lease {
	t.Helper()
	l, err := c.CoordinationV1().Leases(leaseNamespace).Get(context.Background(), leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// apiOnly is a server without controllers, for candidates to use.
func apiOnly(t *testing.T) (*Server, kubernetes.Interface) {
	t.Helper()
	cfg := testConfig(t)
	cfg.Controllers = false
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, clientFor(t, s)
}

// TestLeaderElectionHandover: of several candidates on one API server
// only one runs at a time. A leader that stops gives the Lease up and the
// next one leads at its next retry; a leader that dies (stops without
// releasing) is replaced once its lease expires. Nothing is left running.
func TestLeaderElectionHandover(t *testing.T) {
	before := runtime.NumGoroutine()
	s, client := apiOnly(t)
	var l leaders

	a := startCandidate(t, s, "a", false, &l)
	waitFor(t, "a to lead", func() bool { return a.runs.Load() == 1 })
	b := startCandidate(t, s, "b", true, &l)
	// Let b try for a few retry periods while a renews.
	renewed := leaseOf(t, client).Spec.RenewTime.Time
	waitFor(t, "a to renew", func() bool {
		return leaseOf(t, client).Spec.RenewTime.After(renewed.Add(3 * testRetry))
	})
	if b.runs.Load() != 0 {
		t.Fatal("b leads while a holds the Lease")
	}

	if d := takeover(t, a, b); d > testLease/2 {
		t.Errorf("b led %v after a released the Lease; want within a retry period (%v)", d, testRetry)
	} else {
		t.Logf("takeover after a release: %v", d)
	}

	c := startCandidate(t, s, "c", false, &l)
	d := takeover(t, b, c)
	if d < testLease/2 || d > testLease+2*time.Second {
		t.Errorf("c led %v after b died holding the Lease; want about the lease duration (%v)", d, testLease)
	} else {
		t.Logf("takeover after a leader died: %v", d)
	}
	if holder := ptr.Deref(leaseOf(t, client).Spec.HolderIdentity, ""); holder != "c" {
		t.Errorf("Lease holder %q, want c", holder)
	}
	c.Stop(t)

	if most := l.most.Load(); most != 1 {
		t.Errorf("%d candidates ran at once; want 1", most)
	}
	if err := s.Stop(); err != nil {
		t.Error(err)
	}
	waitFor(t, "the candidates' goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

// TestLeaderElectionCampaignsAgain: a leader whose Lease is taken from it
// stops running, stays a candidate, and leads again once the Lease is
// free.
func TestLeaderElectionCampaignsAgain(t *testing.T) {
	before := runtime.NumGoroutine()
	s, client := apiOnly(t)
	var l leaders
	a := startCandidate(t, s, "a", false, &l)
	waitFor(t, "a to lead", func() bool { return a.runs.Load() == 1 })

	// Another holder takes the Lease, for longer than a's renew deadline,
	// and never renews.
	waitFor(t, "the Lease to be taken", func() bool {
		lease := leaseOf(t, client)
		now := metav1.NewMicroTime(time.Now())
		lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds = ptr.To("intruder"), ptr.To(int32(testLease/time.Second))
		lease.Spec.AcquireTime, lease.Spec.RenewTime = &now, &now
		_, err := client.CoordinationV1().Leases(leaseNamespace).Update(context.Background(), lease, metav1.UpdateOptions{})
		return err == nil
	})
	waitFor(t, "a to stop leading", func() bool { return l.now.Load() == 0 })
	waitFor(t, "a to lead again", func() bool { return a.runs.Load() == 2 && l.now.Load() == 1 })

	a.Stop(t)
	if err := s.Stop(); err != nil {
		t.Error(err)
	}
	waitFor(t, "the candidate's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

// TestControllersRunUnderLeaderElection: with leader election on, a lone
// server takes the Lease and its controllers make a Deployment's pods
// Ready.
func TestControllersRunUnderLeaderElection(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := testConfig(t)
	cfg.LeaderElect = true
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := clientFor(t, s)
	ctx := context.Background()
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	if _, err := c.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Deployment's pods to be Ready", func() bool {
		got, err := c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Status.ReadyReplicas == 2
	})
	host, _ := os.Hostname()
	if holder := ptr.Deref(leaseOf(t, c).Spec.HolderIdentity, ""); !strings.HasPrefix(holder, host+"_") {
		t.Errorf("Lease holder %q; want %s_<random>", holder, host)
	}
	if err := s.Stop(); err != nil {
		t.Error(err)
	}
	waitFor(t, "the server's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

// TestLeaderElectionFlagsChecked: durations the elector would refuse fail
// Start, naming the flag.
func TestLeaderElectionFlagsChecked(t *testing.T) {
	cfg := testConfig(t)
	cfg.LeaderElect = true
	cfg.LeaderElectRenewDeadline = cfg.LeaderElectLeaseDuration
	if _, err := Start(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--leader-elect-renew-deadline") {
		t.Errorf("Start with renew deadline = lease duration: %v", err)
	}
}
