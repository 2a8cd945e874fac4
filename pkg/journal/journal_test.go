package journal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func rec(controller, kind, ns, name string, fields ...any) Record {
	return Record{Controller: controller, Object: Ref{Kind: kind, Namespace: ns, Name: name}, Fields: fields}
}

func names(ps []Pass) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d:%s", p.Seq, p.Object.Name))
	}
	return out
}

func TestJournalKeepsTheNewestPassesInOrder(t *testing.T) {
	j := New(3, nil)
	for i := 1; i <= 5; i++ {
		if seq := j.Add(rec("c", "Deployment", "ns", fmt.Sprint("d", i))); seq != uint64(i) {
			t.Fatalf("Add #%d returned seq %d", i, seq)
		}
	}
	ps, last := j.Since(0, Filter{})
	if got, want := fmt.Sprint(names(ps)), "[3:d3 4:d4 5:d5]"; got != want || last != 5 {
		t.Fatalf("Since(0) = %s, last %d; want %s, last 5 (the ring keeps 3)", got, last, want)
	}
	ps, _ = j.Since(4, Filter{})
	if got, want := fmt.Sprint(names(ps)), "[5:d5]"; got != want {
		t.Fatalf("Since(4) = %s, want %s", got, want)
	}
	if ps, _ = j.Since(5, Filter{}); len(ps) != 0 {
		t.Fatalf("Since(last) = %v, want nothing", names(ps))
	}
}

func TestJournalDefaultSize(t *testing.T) {
	if got := New(0, nil).Size(); got != DefaultSize {
		t.Fatalf("New(0).Size() = %d, want %d", got, DefaultSize)
	}
}

func TestFilterMatchesTheObjectAndItsChildren(t *testing.T) {
	j := New(10, nil)
	j.Add(rec("deployment", "Deployment", "a", "web"))
	child := rec("replicaset", "ReplicaSet", "a", "web-123")
	child.Owner = Ref{Kind: "Deployment", Namespace: "a", Name: "web"}
	j.Add(child)
	j.Add(rec("deployment", "Deployment", "a", "api"))
	j.Add(rec("deployment", "Deployment", "b", "web"))
	j.Add(rec("statefulset", "StatefulSet", "a", "web"))
	for _, tc := range []struct {
		f    Filter
		want string
	}{
		{Filter{}, "[1:web 2:web-123 3:api 4:web 5:web]"},
		{Filter{Namespace: "a"}, "[1:web 2:web-123 3:api 5:web]"},
		{Filter{Namespace: "a", Kind: "deployment", Name: "web"}, "[1:web 2:web-123]"},
		{Filter{Kind: "Deployment", Name: "web"}, "[1:web 2:web-123 4:web]"},
		{Filter{Namespace: "a", Name: "web"}, "[1:web 2:web-123 5:web]"},
		{Filter{Kind: "ReplicaSet"}, "[2:web-123]"},
	} {
		ps, _ := j.Since(0, tc.f)
		if got := fmt.Sprint(names(ps)); got != tc.want {
			t.Errorf("Since(0, %+v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestPassFormatsTheFieldsWhenRead(t *testing.T) {
	j := New(10, func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
	r := rec("job", "Job", "ns", "pi", "active", 2, "succeeded", 1, "desired", 3, "action", "create", "err", errors.New("boom"), "observed", "running")
	r.Owner = Ref{Kind: "CronJob", Namespace: "ns", Name: "hourly"}
	r.Generation = 4
	r.Err = errors.New("conflict")
	j.Add(r)
	j.Add(rec("replicaset", "ReplicaSet", "ns", "rs", "desired", 3, "observed", 3, "action", "none (in sync)", "err", nil))
	ps, _ := j.Since(0, Filter{})
	p := ps[0]
	if p.Desired != "3" || p.Observed != "running active=2 succeeded=1" || p.Action != "create (failed: boom)" ||
		p.Generation != 4 || p.Error != "conflict" || p.Owner == nil || p.Owner.Name != "hourly" || !p.Time.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("first pass = %+v", p)
	}
	if p := ps[1]; p.Desired != "3" || p.Observed != "3" || p.Action != "none (in sync)" || p.Owner != nil || p.Error != "" {
		t.Errorf("second pass = %+v", p)
	}
}

func TestWaitReturnsOnANewPassOrWhenTheContextEnds(t *testing.T) {
	j := New(10, nil)
	j.Add(rec("c", "K", "ns", "a"))
	if err := j.Wait(context.Background(), 0); err != nil {
		t.Fatalf("Wait(0) with a pass kept = %v, want nil at once", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := j.Wait(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on a cancelled context = %v, want context.Canceled", err)
	}

	var wg sync.WaitGroup
	woke := make(chan error, 3)
	for range 3 {
		wg.Go(func() { woke <- j.Wait(context.Background(), 1) })
	}
	// The waiters may start waiting before or after this Add: either way
	// they must all return, as pass 2 exists.
	j.Add(rec("c", "K", "ns", "b"))
	wg.Wait()
	close(woke)
	for err := range woke {
		if err != nil {
			t.Errorf("Wait(1) after pass 2 = %v", err)
		}
	}
}

func TestJournalIsSafeForConcurrentUse(t *testing.T) {
	j := New(50, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var readers, writers sync.WaitGroup
	readers.Go(func() {
		var after uint64
		for after < 400 {
			ps, last := j.Since(after, Filter{Kind: "K"})
			for i := 1; i < len(ps); i++ {
				if ps[i].Seq <= ps[i-1].Seq {
					t.Errorf("passes out of order: %d then %d", ps[i-1].Seq, ps[i].Seq)
				}
			}
			after = last
			if after >= 400 {
				return
			}
			if err := j.Wait(ctx, after); err != nil {
				return
			}
		}
	})
	for w := range 4 {
		writers.Go(func() {
			for i := range 100 {
				j.Add(rec("c", "K", "ns", fmt.Sprint(w, "-", i)))
			}
		})
	}
	writers.Wait()
	readers.Wait()
	if j.Last() != 400 {
		t.Fatalf("Last() = %d, want 400", j.Last())
	}
}
