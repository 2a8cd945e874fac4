package allocator

import (
	"context"
	"math/bits"
)

// RepairReport says what Repair found and did. Values are written as text
// ("10.96.0.10", "30080"), in ascending order except OutOfRange and
// Duplicates, which keep the order of the input.
type RepairReport struct {
	// Added were in use but not recorded: allocations lost (a record
	// rewritten by hand, or a range that had no record yet), now recorded.
	Added []string
	// Kept were recorded but not in use, and stay recorded (KeepUnused):
	// another server may be about to store an object that holds them.
	Kept []string
	// Released were recorded but not in use: allocations leaked, for
	// example by a crash between allocating and storing the object. They
	// are free again.
	Released []string
	// OutOfRange were in use but are not values of this range (the range
	// flag changed) or not valid values at all. They are not recorded.
	OutOfRange []string
	// Duplicates were in use more than once. They are recorded once; the
	// objects that share them must be fixed by hand.
	Duplicates []string
	// Replaced is set when the stored record was made for another range,
	// or was unreadable, and was replaced; it says what it was.
	Replaced string
	// Recorded is how many values are allocated after the repair.
	Recorded int
}

// Unused says what Repair does with values recorded but held by no object.
type Unused int

const (
	// ReleaseUnused frees them: they leaked (a crash between an allocation
	// and the write of its object). Right when this process is the only
	// one allocating while Repair runs.
	ReleaseUnused Unused = iota
	// KeepUnused leaves them recorded: with several servers on one store,
	// such a value may be one another server has just allocated and is
	// about to store with its object. They are reported as Kept.
	KeepUnused
)

// wanted collects the values in use as a set, sorting out the ones it
// cannot record.
type wanted struct {
	set    *bitmap
	report RepairReport
}

func newWanted(size int) *wanted { return &wanted{set: newBitmap(size)} }

// add records offset i for value v, or notes v as out of range (i < 0) or
// as a duplicate.
func (w *wanted) add(i int, v string) {
	switch {
	case i < 0:
		w.report.OutOfRange = append(w.report.OutOfRange, v)
	case !w.set.set(i):
		w.report.Duplicates = append(w.report.Duplicates, v)
	}
}

// repair makes the ledger's set exactly w.set (or, keeping the unused
// values, w.set and what it held), with one compare-and-swap like every
// other change: a concurrent allocation makes it start over rather than
// be lost silently. name turns an offset back into its text.
func (l *ledger) repair(ctx context.Context, w *wanted, unused Unused, name func(int) string) (RepairReport, error) {
	report := w.report
	err := l.update(ctx, true, func(cur *snapshot, next *bitmap) (bool, error) {
		report.Added, report.Released, report.Kept = nil, nil, nil
		for wi := range next.words {
			had, want := cur.set.words[wi], w.set.words[wi]
			if unused == KeepUnused {
				want |= had
			}
			for diff := had ^ w.set.words[wi]; diff != 0; diff &= diff - 1 {
				i := bits.TrailingZeros64(diff)
				switch {
				case want&(1<<i) == 0:
					report.Released = append(report.Released, name(wi*64+i))
				case had&(1<<i) != 0:
					report.Kept = append(report.Kept, name(wi*64+i))
				default:
					report.Added = append(report.Added, name(wi*64+i))
				}
			}
			next.words[wi] = want
		}
		next.count = w.set.count + len(report.Kept)
		report.Recorded = next.count
		report.Replaced = cur.replaced
		return cur.replaced != "" || len(report.Added)+len(report.Released) > 0, nil
	})
	return report, err
}
