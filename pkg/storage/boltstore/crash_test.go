package boltstore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// crashChildEnv, when set to a database path, turns this test binary into
// the crash test's writer child.
const crashChildEnv = "BOLTSTORE_CRASH_CHILD_DB"

// TestCrashKeepsAcknowledgedWrites kills a writing child process with
// SIGKILL, several times over the same file, and checks after each kill
// that every write the child saw acknowledged is there with its revision,
// and that revisions go on rising.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		runCrashChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	var last int64
	for round := range 3 {
		acked := runAndKill(t, path, round, 200)
		s, err := boltstore.Open(path, boltstore.Options{})
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		for key, rev := range acked {
			kv, err := s.Get(t.Context(), key)
			if err != nil {
				t.Fatalf("round %d: acknowledged %s@%d lost: %v", round, key, rev, err)
			}
			if kv.ModRevision != rev || kv.CreateRevision != rev {
				t.Fatalf("round %d: %s at %d/%d, acknowledged at %d", round, key, kv.CreateRevision, kv.ModRevision, rev)
			}
			if rev <= last {
				t.Fatalf("round %d: %s acknowledged at %d, not above the last round's %d", round, key, rev, last)
			}
		}
		cur := s.Revision()
		rev, err := s.Create(t.Context(), fmt.Sprintf("/after/%d", round), []byte("x"))
		if err != nil || rev <= cur {
			t.Fatalf("round %d: first write after reopen got %d (%v), revision was %d", round, rev, err, cur)
		}
		last = rev
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %d acknowledged writes kept, revision now %d", round, len(acked), rev)
	}
}

// runAndKill starts the child, SIGKILLs it once it has acknowledged at
// least n writes, and returns every write it acknowledged: key -> revision.
func runAndKill(t *testing.T, path string, round, n int) map[string]int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashKeepsAcknowledgedWrites$", "-test.v=false")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path, fmt.Sprintf("BOLTSTORE_CRASH_ROUND=%d", round))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]int64{}
	r := bufio.NewReader(out)
	killed := false
	for {
		line, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) {
			break // a line cut by the kill has no newline: not acknowledged
		}
		if err != nil {
			t.Fatal(err)
		}
		var key string
		var rev int64
		if _, err := fmt.Sscanf(line, "ack %s %d\n", &key, &rev); err != nil {
			continue // not ours (the test framework's own output)
		}
		acked[key] = rev
		if len(acked) >= n && !killed {
			killed = true
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	if !killed || err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child ended with %v after %d writes, want killed after %d", err, len(acked), n)
	}
	return acked
}

// runCrashChild writes creates from 8 goroutines until it is killed, and
// prints each acknowledged one.
func runCrashChild(path string) {
	s, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	round := os.Getenv("BOLTSTORE_CRASH_ROUND")
	value := []byte(podJSON("crash"))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				key := fmt.Sprintf("/crash/r%s-w%d-%06d", round, w, i)
				rev, err := s.Create(context.Background(), key, value)
				if err != nil {
					fmt.Fprintln(os.Stderr, "child:", err)
					os.Exit(2)
				}
				mu.Lock()
				fmt.Printf("ack %s %d\n", key, rev)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
