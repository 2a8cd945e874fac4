package boltstore

import (
	"io"
	"os"
)

// The disk reserve. On a full disk even a delete may fail: bbolt writes
// every change to fresh pages (copy on write), and when its file has no
// free pages left it must grow, which needs disk blocks. So the store
// keeps a file of Options.DiskReserveBytes real blocks beside the database
// (PATH.reserve) and, when a commit finds the disk full, deletes it and
// retries the deletes in the batch: they then have room, and free pages
// for later writes. Once creates and updates commit again, the reserve is
// written back (best effort: a disk still nearly full stays without one).

// reservePath is the reserve file's path for the database at path.
func reservePath(path string) string { return path + ".reserve" }

// ensureReserve creates the reserve file with size bytes of zeros (real
// blocks, not a sparse file) if it is not there already.
func ensureReserve(path string, size int64) error {
	rp := reservePath(path)
	if fi, err := os.Stat(rp); err == nil && fi.Size() >= size {
		return nil
	}
	f, err := os.OpenFile(rp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = io.CopyN(f, zeros{}, size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(rp)
	}
	return err
}

// releaseReserve deletes the reserve file; it reports whether there was
// one to delete.
func releaseReserve(path string) bool {
	return os.Remove(reservePath(path)) == nil
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
