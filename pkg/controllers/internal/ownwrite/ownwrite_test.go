package ownwrite

import "testing"

func TestPendingUntilTheCacheShowsTheWrite(t *testing.T) {
	tr := New()
	if tr.Pending("ns/a", "5") {
		t.Fatal("nothing written yet, but Pending")
	}
	tr.Wrote("ns/a", "7")
	for _, cached := range []string{"5", "6"} {
		// 6: another writer's change arrived first; ours is still to come.
		if !tr.Pending("ns/a", cached) {
			t.Fatalf("the cache shows %s, older than the write (7), but not Pending", cached)
		}
	}
	if tr.Pending("ns/b", "5") {
		t.Fatal("another key is Pending")
	}
	if tr.Pending("ns/a", "7") {
		t.Fatal("the cache shows the write, but still Pending")
	}
	if tr.Len() != 0 {
		t.Fatalf("entry kept after the cache caught up: %d", tr.Len())
	}
	if tr.Pending("ns/a", "5") {
		t.Fatal("Pending after the entry was dropped")
	}
}

func TestForget(t *testing.T) {
	tr := New()
	tr.Wrote("ns/a", "7")
	tr.Forget("ns/a")
	if tr.Pending("ns/a", "5") {
		t.Fatal("Pending after Forget")
	}
}

func TestAWriteThatChangedNothingIsNotWaitedFor(t *testing.T) {
	tr := New()
	tr.Wrote("ns/a", "5") // the server answered the version the cache has
	if tr.Pending("ns/a", "5") {
		t.Fatal("a no-op write makes no event, but the next pass would wait for one")
	}
}

func TestVersionsThatAreNotNumbersAreNotRemembered(t *testing.T) {
	tr := New()
	tr.Wrote("ns/a", "fake-1")
	if tr.Pending("ns/a", "") || tr.Len() != 0 {
		t.Fatal("a fake client's version held a pass back")
	}
}
