// Package history reads the kept revisions of one stored object and
// describes each: what changed since the revision before it (Diff,
// Summarize) and who wrote it (Writer). It needs nothing beyond the
// storage.Store interface: the store's watch history already holds every
// revision it keeps, so Read replays it with an ordinary Watch.
package history
