package quota

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// servingURL is the "serving" log line's url.
var servingURL = regexp.MustCompile(`msg=serving url=(http://\S+)`)

// startOnSmallDisk runs bin/miniapi with its data dir on a tmpfs of size
// bytes, mounted in its own user and mount namespaces by unshare(1): a
// real full disk without root. It skips where unshare or user namespaces
// are missing.
func startOnSmallDisk(t *testing.T, size string) kubernetes.Interface {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	bin := harness.Binary(t, "miniapi")
	dir := t.TempDir()
	script := fmt.Sprintf(`mount -t tmpfs -o size=%s tmpfs %s && exec %s --data-dir %s/data --listen 127.0.0.1:0 --controllers=false`, size, dir, bin, dir)
	cmd := exec.Command("unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("unshare: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// The log is read to its end (the pipe must not fill), for the
	// "serving" line's URL: the kubeconfig is on the namespace's tmpfs.
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingURL.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		close(urls)
	}()
	select {
	case url, ok := <-urls:
		if !ok {
			t.Skip("miniapi did not start in a mount namespace (no user namespaces here?)")
		}
		c, err := kubernetes.NewForConfig(&rest.Config{Host: url})
		if err != nil {
			t.Fatal(err)
		}
		return c
	case <-time.After(20 * time.Second):
		t.Fatal("miniapi did not start within 20s")
	}
	return nil
}

func TestFullDiskRefusesWritesServesReadsAndDeletesAndRecovers(t *testing.T) {
	c := startOnSmallDisk(t, "40m")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cms := c.CoreV1().ConfigMaps("default")
	big := strings.Repeat("x", 512<<10)

	var names []string
	var refused error
	for i := 0; i < 200 && refused == nil; i++ {
		name := fmt.Sprintf("big-%03d", i)
		_, refused = cms.Create(ctx, configMapWith(name, big), metav1.CreateOptions{})
		if refused == nil {
			names = append(names, name)
		}
	}
	var st *apierrors.StatusError
	if !errors.As(refused, &st) {
		t.Fatalf("create on a full disk: %v, want a Status", refused)
	}
	if s := st.ErrStatus; s.Code != http.StatusInternalServerError || !strings.Contains(s.Message, "database space exceeded: the disk is full") ||
		strings.Contains(s.Message, "/") {
		t.Fatalf("create on a full disk: %d %q; want 500 database space exceeded, the disk is full, naming no path", s.Code, s.Message)
	}
	if len(names) == 0 {
		t.Fatal("nothing fitted on the disk")
	}
	if _, err := cms.Get(ctx, names[0], metav1.GetOptions{}); err != nil {
		t.Errorf("get on a full disk: %v", err)
	}
	if list, err := cms.List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != len(names) {
		t.Errorf("list on a full disk: %v (want %d items)", err, len(names))
	}
	half := names[:len(names)/2]
	for _, n := range half {
		if err := cms.Delete(ctx, n, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete on a full disk: %v", err)
		}
	}
	// The deletes freed pages in the file: creates commit there again once
	// the server tries them (a second after the last failure).
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := cms.Create(ctx, configMapWith("after", "small"), metav1.CreateOptions{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("create after the deletes: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, n := range names[len(names)/2:] {
		if _, err := cms.Get(ctx, n, metav1.GetOptions{}); err != nil {
			t.Errorf("acknowledged %s lost: %v", n, err)
		}
	}
}
