package job

import (
	"strconv"
	"strings"
)

// interval is the closed range of completion indexes [first, last].
type interval struct{ first, last int }

// intervals is a sorted list of disjoint, non-adjacent index ranges: the
// form of status.completedIndexes and status.failedIndexes, which kube
// writes as "0-2,4,6,7" (a range of two is written as two numbers).
type intervals []interval

// parseIntervals reads kube's interval format, keeping only indexes below
// completions. Malformed parts are skipped, as kube skips them.
func parseIntervals(s string, completions int) intervals {
	var out intervals
	if s == "" {
		return out
	}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(lo)
		if err != nil || first < 0 {
			continue
		}
		if first >= completions {
			break
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(hi); err != nil || last < first {
				continue
			}
			last = min(last, completions-1)
		}
		out = out.merge(intervals{{first, last}})
	}
	return out
}

// String writes the intervals in kube's format.
func (iv intervals) String() string {
	var b strings.Builder
	for _, r := range iv {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.first))
		switch {
		case r.last == r.first+1:
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(r.last))
		case r.last > r.first:
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r.last))
		}
	}
	return b.String()
}

// total is how many indexes the intervals hold.
func (iv intervals) total() int {
	n := 0
	for _, r := range iv {
		n += r.last - r.first + 1
	}
	return n
}

// has reports whether ix is in one of the intervals.
func (iv intervals) has(ix int) bool {
	for _, r := range iv {
		if ix < r.first {
			return false
		}
		if ix <= r.last {
			return true
		}
	}
	return false
}

// with returns iv plus the single indexes ixs (in any order).
func (iv intervals) with(ixs ...int) intervals {
	out := iv
	for _, ix := range ixs {
		out = out.merge(intervals{{ix, ix}})
	}
	return out
}

// merge returns the union of iv and other, joining ranges that touch.
func (iv intervals) merge(other intervals) intervals {
	var out intervals
	add := func(r interval) {
		if n := len(out); n > 0 && r.first <= out[n-1].last+1 {
			out[n-1].last = max(out[n-1].last, r.last)
			return
		}
		out = append(out, r)
	}
	i, j := 0, 0
	for i < len(iv) || j < len(other) {
		if j == len(other) || (i < len(iv) && iv[i].first < other[j].first) {
			add(iv[i])
			i++
		} else {
			add(other[j])
			j++
		}
	}
	return out
}

// overlap counts the indexes that are in both iv and other.
func (iv intervals) overlap(other intervals) int {
	n, i, j := 0, 0, 0
	for i < len(iv) && j < len(other) {
		if o := min(iv[i].last, other[j].last) - max(iv[i].first, other[j].first) + 1; o > 0 {
			n += o
		}
		if iv[i].last < other[j].last {
			i++
		} else {
			j++
		}
	}
	return n
}
