// Package journal keeps the reconcile journal: one record per pass of a
// controller's loop — the object it looked at, what it read as desired,
// what it observed, the action it chose and the writes it made — so that a
// learner can watch the level-triggered loop think, pass by pass.
//
// # Basics
//
// A Journal is a bounded ring: it keeps the newest passes (10,000 by
// default) and forgets the oldest. Every pass gets a sequence number, one
// more than the pass before. Controllers Add records; readers ask for the
// passes after a sequence number (Since) and, to follow the journal, Wait
// for newer ones.
//
// Recording is on the controllers' hot path, so Add stores what it is given
// and formats nothing: a Record's Fields are the pass's log attributes as
// the controller already built them, turned into text only when a reader
// asks (Pass).
//
// # Caveats
//
// A Journal belongs to one server and holds nothing global: several
// servers in one process keep separate journals. A reader that falls more
// than the ring's size behind misses the passes overwritten meanwhile; the
// sequence numbers show the gap.
package journal
