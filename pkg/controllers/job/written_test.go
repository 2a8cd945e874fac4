package job

import "testing"

func TestWrittenStatusWaitsForTheCache(t *testing.T) {
	var w writtenStatus
	if !w.seen("ns/a", "5") {
		t.Error("a Job never written is not waited for")
	}
	w.record("ns/a", "10")
	if w.seen("ns/a", "9") {
		t.Error("a cache older than the write counts as seen")
	}
	if !w.seen("ns/a", "10") || !w.seen("ns/a", "3") {
		t.Error("once seen, the write is forgotten")
	}
	w.record("ns/b", "")
	if !w.seen("ns/b", "1") {
		t.Error("a resourceVersion that is not a number is not remembered")
	}
	w.record("ns/c", "7")
	w.forget("ns/c")
	if !w.seen("ns/c", "1") {
		t.Error("a forgotten Job is still waited for")
	}
}
