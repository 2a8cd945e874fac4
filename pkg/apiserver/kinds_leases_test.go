package apiserver

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// candidate runs client-go's leader election for identity until ctx ends.
type candidate struct {
	elector *leaderelection.LeaderElector
	leading atomic.Bool
	done    chan struct{}
}

func runCandidate(ctx context.Context, t *testing.T, c kubernetes.Interface, identity string) *candidate {
	t.Helper()
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: "the-lock", Namespace: "default"},
		Client:     c.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	cand := &candidate{done: make(chan struct{})}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     50 * time.Millisecond,
		ReleaseOnCancel: true,
		Name:            identity,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { cand.leading.Store(true) },
			OnStoppedLeading: func() { cand.leading.Store(false) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cand.elector = le
	go func() { defer close(cand.done); le.Run(ctx) }()
	return cand
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLeaderElectionWithLeases runs client-go's leader election with a
// LeaseLock against the server: the first candidate leads, a second one
// sees it as leader and does not lead, and takes over when the first
// releases the lease.
func TestLeaderElectionWithLeases(t *testing.T) {
	ts := startTestServer(t)
	c := ts.client(t)

	ctxA, stopA := context.WithCancel(context.Background())
	defer stopA()
	a := runCandidate(ctxA, t, c, "candidate-a")
	waitFor(t, "candidate-a to lead", a.leading.Load)

	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	b := runCandidate(ctxB, t, c, "candidate-b")
	waitFor(t, "candidate-b to observe the leader", func() bool { return b.elector.GetLeader() == "candidate-a" })
	if b.leading.Load() || b.elector.IsLeader() {
		t.Fatal("candidate-b leads while candidate-a holds the lease")
	}
	lease, err := c.CoordinationV1().Leases("default").Get(context.Background(), "the-lock", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "candidate-a" || lease.Spec.LeaseDurationSeconds == nil || *lease.Spec.LeaseDurationSeconds != 15 {
		t.Errorf("lease spec %+v", lease.Spec)
	}

	stopA()
	<-a.done
	waitFor(t, "candidate-b to take over", b.leading.Load)
	stopB()
	<-b.done
}

// TestLeaseValidationAndTable: kube's messages for a bad spec (kubectl
// prints them as `The Lease "my-lock" is invalid: ...`), and the NAME
// HOLDER AGE Table.
func TestLeaseValidationAndTable(t *testing.T) {
	ts := startTestServer(t)
	const base = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	code, _, body := ts.do(t, "POST", base, "application/json",
		`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"my-lock"},"spec":{"holderIdentity":"pod-a","leaseDurationSeconds":15,"acquireTime":"2026-12-01T08:46:00.000000Z","renewTime":"2026-12-01T08:46:00.000000Z","leaseTransitions":0}}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	for patch, want := range map[string]string{
		`{"spec":{"leaseDurationSeconds":0}}`: `Lease.coordination.k8s.io \"my-lock\" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0`,
		`{"spec":{"leaseTransitions":-1}}`:    `Lease.coordination.k8s.io \"my-lock\" is invalid: spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0`,
	} {
		code, _, body := ts.do(t, "PATCH", base+"/my-lock", "application/merge-patch+json", patch)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `"message":"`+want+`"`) {
			t.Errorf("patch %s: %d %s\nwant message %s", patch, code, body, want)
		}
	}
	code, _, body = ts.do(t, "GET", base, "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	if code != 200 || !regexp.MustCompile(`"cells":\["my-lock","pod-a","\d+s"\]`).MatchString(body) ||
		!strings.Contains(body, `{"name":"Holder","type":"string","format":"","description":"holderIdentity contains the identity of the holder of a current lease.`) {
		t.Errorf("table: %d %s", code, body)
	}
}

// Discovery lists leases as kube-apiserver does (reference section 21).
func TestLeasesDiscovery(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, "GET", "/apis/coordination.k8s.io/v1", "", "")
	want := `"resources":[{"name":"leases","singularName":"lease","namespaced":true,"kind":"Lease","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"gqkMMb/YqFM="}]`
	if code != 200 || !strings.Contains(body, want) {
		t.Errorf("discovery: %d %s", code, body)
	}
}
