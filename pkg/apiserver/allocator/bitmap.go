package allocator

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// bitmap is the set of allocated offsets 0..size-1 of one range, in memory.
type bitmap struct {
	words []uint64
	size  int
	count int
}

func newBitmap(size int) *bitmap {
	return &bitmap{words: make([]uint64, (size+63)/64), size: size}
}

func (b *bitmap) has(i int) bool {
	return b.words[i/64]&(1<<(i%64)) != 0
}

// set marks i and says whether it was free.
func (b *bitmap) set(i int) bool {
	if b.has(i) {
		return false
	}
	b.words[i/64] |= 1 << (i % 64)
	b.count++
	return true
}

// clear frees i and says whether it was taken.
func (b *bitmap) clear(i int) bool {
	if !b.has(i) {
		return false
	}
	b.words[i/64] &^= 1 << (i % 64)
	b.count--
	return true
}

func (b *bitmap) clone() *bitmap {
	c := *b
	c.words = append([]uint64(nil), b.words...)
	return &c
}

// nextFree is the first free offset in [from, to), or -1. It looks at 64
// offsets per step, so a scan of a million-value range stays cheap.
func (b *bitmap) nextFree(from, to int) int {
	for from < to {
		w := ^b.words[from/64] >> (from % 64) // free bits, from `from` on
		if w != 0 {
			i := from + bits.TrailingZeros64(w)
			if i < to {
				return i
			}
			return -1
		}
		from = (from/64 + 1) * 64
	}
	return -1
}

// each calls fn with every allocated offset in ascending order.
func (b *bitmap) each(fn func(int)) {
	for wi, w := range b.words {
		for w != 0 {
			fn(wi*64 + bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

// appendDeltas encodes the set as ascending offsets, each as the uvarint
// of its distance from the one before (the first from -1). The encoding
// grows with the number of allocated values, not with the range: a few
// hundred Services in a /12 take a few hundred bytes, where a bitmap would
// take 128 KiB, and every write of the key is also kept in the store's
// watch history.
func (b *bitmap) appendDeltas(dst []byte) []byte {
	prev := -1
	b.each(func(i int) {
		dst = binary.AppendUvarint(dst, uint64(i-prev))
		prev = i
	})
	return dst
}

// decodeDeltas is appendDeltas' inverse; it refuses anything appendDeltas
// could not have written for a range of this size.
func decodeDeltas(data []byte, size int) (*bitmap, error) {
	b := newBitmap(size)
	prev := -1
	for len(data) > 0 {
		d, n := binary.Uvarint(data)
		if n <= 0 {
			return nil, errors.New("bad varint")
		}
		data = data[n:]
		if d == 0 {
			return nil, errors.New("offsets not ascending")
		}
		if d > uint64(size) || prev+int(d) >= size {
			return nil, fmt.Errorf("offset beyond the range of %d values", size)
		}
		prev += int(d)
		b.set(prev)
	}
	return b, nil
}
