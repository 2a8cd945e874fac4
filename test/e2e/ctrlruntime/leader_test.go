package ctrlruntime

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestLeaderElection runs two managers with the same LeaderElectionID: the
// first takes the Lease, the second waits while the first renews it, and
// takes over once the first stops, either at once (the first releases the
// lease on cancel) or after the lease expires (it does not).
func TestLeaderElection(t *testing.T) {
	s := harness.Start(t, "--controllers=false")
	c := s.Client()
	for _, tc := range []struct {
		name            string
		releaseOnCancel bool
	}{
		{"release on cancel", true},
		{"lease expiry", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "election-" + strings.ReplaceAll(tc.name, " ", "-")
			opts := managerOptions(id)
			opts.LeaderElectionReleaseOnCancel = tc.releaseOnCancel

			first := run(t, newManager(t, s.Config(), opts))
			took := first.waitElected(t, 30*time.Second)
			t.Logf("first manager elected %s after Start", took.Round(time.Millisecond))
			lease := getLease(t, c, id)
			firstHolder := holder(lease)
			if firstHolder == "" || !strings.Contains(firstHolder, "_") {
				t.Fatalf("lease holderIdentity = %q; want controller-runtime's hostname_uuid", firstHolder)
			}
			if got := ptrValue(lease.Spec.LeaseDurationSeconds); got != int32(leaseDuration/time.Second) {
				t.Errorf("lease leaseDurationSeconds = %d; want %d", got, leaseDuration/time.Second)
			}

			second := run(t, newManager(t, s.Config(), opts))
			waitFirstKeepsLease(t, c, id, firstHolder, second.started)
			if second.isElected() {
				t.Fatalf("second manager was elected while the first held the lease")
			}

			stopped := time.Now()
			first.stop(t)
			second.waitElected(t, 30*time.Second)
			t.Logf("second manager elected %s after the first stopped (releaseOnCancel=%v)",
				time.Since(stopped).Round(time.Millisecond), tc.releaseOnCancel)
			lease = getLease(t, c, id)
			if h := holder(lease); h == "" || h == firstHolder {
				t.Errorf("after takeover holderIdentity = %q; want the second manager's (first was %q)", h, firstHolder)
			}
			if got := ptrValue(lease.Spec.LeaseTransitions); got != 1 {
				t.Errorf("leaseTransitions = %d; want 1", got)
			}
		})
	}
}

// waitFirstKeepsLease waits until the first manager has renewed the lease
// later than one full lease duration (plus a retry) after the second
// manager started: by then the second has tried to acquire it several
// times and would have taken it over had the server let it.
func waitFirstKeepsLease(t *testing.T, c kubernetes.Interface, id, firstHolder string, secondStarted time.Time) {
	t.Helper()
	until := secondStarted.Add(leaseDuration + 2*retryPeriod)
	eventually(t, 30*time.Second, "the first manager to renew its lease past "+until.Format(time.RFC3339Nano),
		func(ctx context.Context) (bool, error) {
			lease := getLease(t, c, id)
			if h := holder(lease); h != firstHolder {
				t.Fatalf("lease holder changed to %q while the first manager (%q) runs", h, firstHolder)
			}
			return lease.Spec.RenewTime != nil && lease.Spec.RenewTime.After(until), nil
		})
}

func getLease(t *testing.T, c kubernetes.Interface, name string) *coordinationv1.Lease {
	t.Helper()
	lease, err := c.CoordinationV1().Leases(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting lease %s/%s: %v", ns, name, err)
	}
	return lease
}

func holder(l *coordinationv1.Lease) string { return ptrValue(l.Spec.HolderIdentity) }

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
