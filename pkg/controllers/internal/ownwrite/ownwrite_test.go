package ownwrite

import "testing"

func TestPendingUntilTheCacheMovesOn(t *testing.T) {
	tr := New()
	if tr.Pending("ns/a", "5") {
		t.Fatal("nothing written yet, but Pending")
	}
	tr.Wrote("ns/a", "5", "7")
	if !tr.Pending("ns/a", "5") {
		t.Fatal("the cache still shows the version the write was based on, but not Pending")
	}
	if tr.Pending("ns/b", "5") {
		t.Fatal("another key is Pending")
	}
	if tr.Pending("ns/a", "6") {
		t.Fatal("the cache moved on, but still Pending")
	}
	if tr.Len() != 0 {
		t.Fatalf("entry kept after the cache moved on: %d", tr.Len())
	}
	// Once dropped, even the old version no longer holds a pass back.
	if tr.Pending("ns/a", "5") {
		t.Fatal("Pending after the entry was dropped")
	}
}

func TestForget(t *testing.T) {
	tr := New()
	tr.Wrote("ns/a", "5", "7")
	tr.Forget("ns/a")
	if tr.Pending("ns/a", "5") {
		t.Fatal("Pending after Forget")
	}
}

func TestAWriteThatChangedNothingIsNotWaitedFor(t *testing.T) {
	tr := New()
	tr.Wrote("ns/a", "5", "5")
	if tr.Pending("ns/a", "5") {
		t.Fatal("a no-op write (same version back) makes no event, but the next pass would wait for one")
	}
}
