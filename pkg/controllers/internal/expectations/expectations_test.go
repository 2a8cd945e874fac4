package expectations

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestExpectations(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(0, 0))
	e := New(clk)
	if !e.Satisfied("rs") {
		t.Fatal("nothing expected: want satisfied")
	}
	e.ExpectCreations("rs", 2)
	e.ExpectDeletions("rs", []string{"ns/a"})
	if e.Satisfied("rs") {
		t.Fatal("2 creations and 1 deletion pending: want unsatisfied")
	}
	e.CreationObserved("rs")
	e.CreationObserved("rs")
	e.DeletionObserved("rs", "ns/a")
	e.DeletionObserved("rs", "ns/a") // seen twice (update with deletionTimestamp, then delete)
	if !e.Satisfied("rs") {
		t.Fatalf("all observed: want satisfied, pending %v", fmtPending(e))
	}
	e.CreationObserved("rs") // an extra event never makes the count negative
	e.ExpectCreations("rs", 1)
	if e.Satisfied("rs") {
		t.Fatal("1 creation pending after an extra observation: want unsatisfied")
	}
	clk.SetTime(clk.Now().Add(TTL + time.Second))
	if !e.Satisfied("rs") {
		t.Fatal("expectations older than TTL: want satisfied (a lost event must not wedge the controller)")
	}
	e.ExpectCreations("other", 1)
	e.Forget("other")
	if !e.Satisfied("other") {
		t.Fatal("forgotten: want satisfied")
	}
}

func fmtPending(e *Expectations) [2]int {
	a, d := e.Pending("rs")
	return [2]int{a, d}
}
