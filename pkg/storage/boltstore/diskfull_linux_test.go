package boltstore

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/miniapi/miniapi/pkg/storage"
)

// smallDiskEnv names the tmpfs mount point in the child process that
// onSmallDisk starts.
const smallDiskEnv = "BOLTSTORE_TEST_SMALL_DISK"

// onSmallDisk runs the calling test again in a child process with its own
// user and mount namespaces, where it mounts a tmpfs of size bytes: a real
// full disk, without root and without touching the machine's mounts. In
// the parent it reports the child's outcome and returns false (the caller
// returns); in the child it returns the store, and a filler file, on the
// tmpfs. It skips where user namespaces are not allowed.
func onSmallDisk(t *testing.T, size int) (*Store, *os.File, bool) {
	t.Helper()
	dir := os.Getenv(smallDiskEnv)
	if dir == "" {
		runOnSmallDisk(t)
		return nil, nil, false
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	s, err := Open(filepath.Join(dir, "miniapi.db"), Options{DiskReserveBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(); _ = f.Close() })
	return s, f, true
}

// runOnSmallDisk is onSmallDisk's parent side.
func runOnSmallDisk(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), smallDiskEnv+"="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		t.Skipf("no user and mount namespaces here: %v", err)
	case err != nil:
		t.Fatalf("on a small disk: %v\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP"):
		t.Skipf("on a small disk:\n%s", out)
	}
	t.Logf("on a small disk:\n%s", out)
}

func TestFullDiskRefusesWritesKeepsReadsAndDeletesAndRecovers(t *testing.T) {
	s, filler, child := onSmallDisk(t, 16<<20)
	if !child {
		return
	}
	ctx := t.Context()
	value := []byte(strings.Repeat("d", 4096))
	var acked []string
	for i := range 200 {
		key := fmt.Sprintf("/d/%04d", i)
		if _, err := s.Create(ctx, key, value); err != nil {
			t.Fatalf("Create(%s) before the disk is full: %v", key, err)
		}
		acked = append(acked, key)
	}
	// Fill the rest of the disk.
	chunk := make([]byte, 64<<10)
	for {
		if _, err := filler.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	var err error
	for i := 0; err == nil; i++ {
		key := fmt.Sprintf("/d/full%04d", i)
		if _, err = s.Create(ctx, key, value); err == nil {
			acked = append(acked, key) // fitted in pages bbolt had free
		}
		if i > 10000 {
			t.Fatal("no error on a full disk")
		}
	}
	if !errors.Is(err, storage.ErrNoSpace) {
		t.Fatalf("Create on a full disk: %v, want ErrNoSpace", err)
	}
	if msg := err.Error(); strings.Contains(msg, "/") {
		t.Errorf("error names a path: %q", msg)
	}
	if st := s.SpaceStatus(); st.Alarm != storage.AlarmNoSpace || st.AlarmReason != "disk full" {
		t.Errorf("Status = %+v, want the NOSPACE alarm for a full disk", st)
	}
	if _, err := s.Get(ctx, acked[0]); err != nil {
		t.Errorf("Get on a full disk: %v", err)
	}
	if _, err := s.Delete(ctx, acked[0], 0); err != nil {
		t.Errorf("Delete on a full disk: %v", err)
	}
	acked = acked[1:]

	// Free the disk: creates resume once the back-off has passed.
	if err := filler.Truncate(0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := s.Create(ctx, "/d/after", value)
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrNoSpace) || time.Now().After(deadline) {
			t.Fatalf("Create after space was freed: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	acked = append(acked, "/d/after")
	if st := s.SpaceStatus(); st.Alarm != AlarmNone {
		t.Errorf("alarm after recovery: %+v", st)
	}
	if _, err := os.Stat(reservePath(s.path)); err != nil {
		t.Errorf("the disk reserve was not written back: %v", err)
	}

	// Every acknowledged write is there, and the file is sound.
	list, err := s.List(ctx, "/d/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, kv := range list.KVs {
		got[kv.Key] = true
	}
	for _, k := range acked {
		if !got[k] {
			t.Errorf("acknowledged key %s is missing", k)
		}
	}
	if len(list.KVs) != len(acked) {
		t.Errorf("%d keys, want %d", len(list.KVs), len(acked))
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	if err != nil {
		t.Errorf("bbolt check: %v", err)
	}
}
