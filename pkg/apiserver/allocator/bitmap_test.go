package allocator

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBitmapSetClearHas(t *testing.T) {
	b := newBitmap(130)
	for _, i := range []int{0, 63, 64, 129} {
		if !b.set(i) {
			t.Fatalf("set(%d) on a free offset said taken", i)
		}
		if b.set(i) {
			t.Fatalf("second set(%d) said free", i)
		}
		if !b.has(i) {
			t.Fatalf("has(%d) = false after set", i)
		}
	}
	if b.count != 4 {
		t.Fatalf("count = %d, want 4", b.count)
	}
	if !b.clear(63) || b.clear(63) || b.has(63) || b.count != 3 {
		t.Fatalf("clear(63): has=%v count=%d", b.has(63), b.count)
	}
	var got []int
	b.each(func(i int) { got = append(got, i) })
	if want := []int{0, 64, 129}; !slices.Equal(got, want) {
		t.Fatalf("each = %v, want %v", got, want)
	}
}

func TestBitmapNextFree(t *testing.T) {
	b := newBitmap(200)
	for i := range 150 {
		b.set(i)
	}
	cases := []struct{ from, to, want int }{
		{0, 200, 150},
		{0, 150, -1},
		{149, 151, 150},
		{160, 200, 160},
		{150, 150, -1},
	}
	for _, c := range cases {
		if got := b.nextFree(c.from, c.to); got != c.want {
			t.Errorf("nextFree(%d, %d) = %d, want %d", c.from, c.to, got, c.want)
		}
	}
	b.set(199)
	if got := b.nextFree(199, 200); got != -1 {
		t.Errorf("nextFree(199, 200) with 199 taken = %d, want -1", got)
	}
}

func TestDeltasRoundTrip(t *testing.T) {
	for _, size := range []int{1, 63, 64, 65, 1000, 1 << 20} {
		b := newBitmap(size)
		for range min(size, 500) {
			b.set(rand.IntN(size))
		}
		b.set(size - 1)
		data := b.appendDeltas(nil)
		got, err := decodeDeltas(data, size)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if !slices.Equal(got.words, b.words) || got.count != b.count {
			t.Fatalf("size %d: round trip changed the set", size)
		}
	}
}

func TestDeltasSizeFollowsUse(t *testing.T) {
	b := newBitmap(1 << 20)
	for i := range 300 {
		b.set(i * 3000)
	}
	// 300 deltas of 3000 take 2 bytes each; a bitmap would be 128 KiB.
	if n := len(b.appendDeltas(nil)); n > 600 {
		t.Fatalf("300 values in a 2^20 range encode in %d bytes", n)
	}
}

func TestDecodeDeltasRefusesBadData(t *testing.T) {
	cases := map[string][]byte{
		"beyond the range": binary.AppendUvarint(nil, 11),
		"zero delta":       binary.AppendUvarint(binary.AppendUvarint(nil, 1), 0),
		"truncated varint": {0x80},
		"sum beyond range": binary.AppendUvarint(binary.AppendUvarint(nil, 6), 5),
	}
	for name, data := range cases {
		if _, err := decodeDeltas(data, 10); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}
