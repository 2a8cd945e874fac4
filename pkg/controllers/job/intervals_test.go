package job

import "testing"

func TestIntervalsRoundTripInKubeFormat(t *testing.T) {
	for _, c := range []struct {
		in          string
		completions int
		want        string
		total       int
	}{
		{"", 5, "", 0},
		{"0", 5, "0", 1},
		{"0-2,4", 5, "0-2,4", 4},
		{"0,1", 5, "0,1", 2},
		{"0-1", 5, "0,1", 2},
		{"0,1,2", 5, "0-2", 3},
		{"0-2,3", 5, "0-3", 4},
		{"1-9", 5, "1-4", 4},   // capped at completions
		{"1,x,3", 5, "1,3", 2}, // malformed parts skipped
		{"2,7,3", 5, "2", 1},   // stops at the first index past completions
	} {
		iv := parseIntervals(c.in, c.completions)
		if got := iv.String(); got != c.want || iv.total() != c.total {
			t.Errorf("parse(%q) = %q (total %d), want %q (total %d)", c.in, got, iv.total(), c.want, c.total)
		}
	}
}

func TestIntervalsWithMergeHasOverlap(t *testing.T) {
	iv := intervals(nil).with(4, 0, 2, 1, 7, 8)
	if got := iv.String(); got != "0-2,4,7,8" {
		t.Fatalf("with = %q", got)
	}
	if got := iv.merge(intervals{{3, 3}, {5, 6}}).String(); got != "0-8" {
		t.Errorf("merge = %q, want 0-8", got)
	}
	for ix, want := range map[int]bool{0: true, 2: true, 3: false, 4: true, 6: false, 8: true, 9: false} {
		if iv.has(ix) != want {
			t.Errorf("has(%d) = %v", ix, !want)
		}
	}
	if n := iv.overlap(parseIntervals("1-4,8-20", 30)); n != 4 {
		t.Errorf("overlap = %d, want 4 (1,2,4,8)", n)
	}
}
