package boltstore

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage"
)

func TestEventRoundTrip(t *testing.T) {
	prev := storage.KV{Key: "/k", Value: []byte("old"), CreateRevision: 3, ModRevision: 4}
	// values stands for the events bucket: revision 4 wrote "old".
	values := func(rev int64) ([]byte, error) {
		if rev != 4 {
			return nil, fmt.Errorf("%w: no event %d", errCorrupt, rev)
		}
		return []byte("old"), nil
	}
	for _, c := range []struct {
		ev       storage.Event
		prevKept bool
		form     byte
	}{
		{storage.Event{Type: storage.Put, KV: storage.KV{Key: "/k", Value: []byte("new"), CreateRevision: 3, ModRevision: 5}, PrevKV: &prev}, false, prevFull},
		{storage.Event{Type: storage.Put, KV: storage.KV{Key: "/k", Value: []byte("new"), CreateRevision: 3, ModRevision: 5}, PrevKV: &prev}, true, prevAt},
		{storage.Event{Type: storage.Put, KV: storage.KV{Key: "/k", Value: nil, CreateRevision: 9, ModRevision: 9}}, true, prevNone},
		{storage.Event{Type: storage.Delete, KV: storage.KV{Key: "/k", Value: []byte("old"), CreateRevision: 3, ModRevision: 7}, PrevKV: &prev}, true, prevSame},
	} {
		b := encodeEvent(c.ev, c.prevKept)
		if form := prevForm(c.ev, c.prevKept); form != c.form {
			t.Fatalf("form %d, want %d", form, c.form)
		}
		got, err := decodeEvent(b, values)
		if err != nil {
			t.Fatalf("decodeEvent: %v", err)
		}
		if !reflect.DeepEqual(got, c.ev) {
			t.Fatalf("round trip of form %d: got %+v, want %+v", c.form, got, c.ev)
		}
		// Every truncation is reported, never a panic or a silent success.
		for n := range len(b) {
			if _, err := decodeEvent(b[:n], values); !errors.Is(err, errCorrupt) {
				t.Fatalf("decodeEvent of %d of %d bytes: %v, want errCorrupt", n, len(b), err)
			}
		}
	}
}

// TestPreviousValueIsStoredOnce: an update's event refers to the value
// its previous event holds, so it is about one value long, not two.
func TestPreviousValueIsStoredOnce(t *testing.T) {
	value := make([]byte, 1000)
	prev := storage.KV{Key: "/k", Value: value, CreateRevision: 3, ModRevision: 4}
	ev := storage.Event{Type: storage.Put, KV: storage.KV{Key: "/k", Value: value, CreateRevision: 3, ModRevision: 5}, PrevKV: &prev}
	full, ref := len(encodeEvent(ev, false)), len(encodeEvent(ev, true))
	if full < 2000 || ref > 1100 {
		t.Fatalf("event with the previous value in full: %d bytes; referring to it: %d bytes", full, ref)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	b := encodeRecord(2, 8, []byte("value"))
	kv, err := decodeRecord("/k", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := storage.KV{Key: "/k", Value: []byte("value"), CreateRevision: 2, ModRevision: 8}
	if !reflect.DeepEqual(kv, want) {
		t.Fatalf("got %+v, want %+v", kv, want)
	}
	b[16] = 'V' // the decoded value must not alias the input
	if string(kv.Value) != "value" {
		t.Fatalf("decoded value aliases bbolt's memory: %q", kv.Value)
	}
	if _, err := decodeRecord("/k", b[:15], nil); !errors.Is(err, errCorrupt) {
		t.Fatalf("short record: %v", err)
	}
}

func TestHistoryRing(t *testing.T) {
	ev := func(rev int64, key string) storage.Event {
		return storage.Event{KV: storage.KV{Key: key, ModRevision: rev}}
	}
	h := newHistory(4, 10, []storage.Event{ev(9, "/a/1"), ev(10, "/b/1")})
	if h.oldest() != 9 {
		t.Fatalf("oldest = %d, want 9", h.oldest())
	}
	for rev := int64(11); rev <= 15; rev++ {
		h.append(ev(rev, "/a/x"))
	}
	if h.oldest() != 12 || h.last != 15 {
		t.Fatalf("after wrapping: oldest %d last %d, want 12 15", h.oldest(), h.last)
	}
	var got []int64
	for _, e := range h.since(12, "/a/") {
		got = append(got, e.KV.ModRevision)
	}
	if !reflect.DeepEqual(got, []int64{13, 14, 15}) {
		t.Fatalf("since(12) = %v", got)
	}
	if n := len(h.since(11, "")); n != 4 {
		t.Fatalf("since(oldest-1) returned %d events, want 4", n)
	}
	empty := newHistory(4, 7, nil)
	if empty.oldest() != 8 || len(empty.since(7, "")) != 0 {
		t.Fatalf("empty history: oldest %d", empty.oldest())
	}
}

// TestHistoryRingGrows: the ring starts short and grows to its size,
// keeping the events in revision order through a trim and a wrap.
func TestHistoryRingGrows(t *testing.T) {
	ev := func(rev int64) storage.Event {
		return storage.Event{KV: storage.KV{Key: "/k", ModRevision: rev}}
	}
	const size = 200
	h := newHistory(size, 0, nil)
	if len(h.buf) != minHistoryRing {
		t.Fatalf("first ring length %d, want %d", len(h.buf), minHistoryRing)
	}
	for rev := int64(1); rev <= minHistoryRing; rev++ {
		h.append(ev(rev))
	}
	h.dropBefore(11) // the oldest slot is no longer slot 0 when it grows
	for rev := int64(minHistoryRing + 1); rev <= 1000; rev++ {
		h.append(ev(rev))
		want := max(11, rev-size+1)
		if h.oldest() != want || h.last != rev {
			t.Fatalf("after revision %d: oldest %d last %d, want %d %d", rev, h.oldest(), h.last, want, rev)
		}
		for _, r := range []int64{want, (want + rev) / 2, rev} {
			if e, ok := h.at(r); !ok || e.KV.ModRevision != r {
				t.Fatalf("after revision %d: at(%d) = %d %v", rev, r, e.KV.ModRevision, ok)
			}
		}
	}
	if len(h.buf) != size {
		t.Fatalf("ring length %d, want %d", len(h.buf), size)
	}
	if got := h.since(900, ""); len(got) != 100 || got[0].KV.ModRevision != 901 || got[99].KV.ModRevision != 1000 {
		t.Fatalf("since(900): %d events", len(got))
	}
}
