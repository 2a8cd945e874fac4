// Package quota checks --quota-backend-bytes on the real bin/miniapi: past
// the quota creates and updates get kube-apiserver's 500 "database space
// exceeded" (naming no path) while reads and deletes go on, and a
// compaction (minictl maintenance compact, or a restart with
// --compact-on-start) lets writes resume.
package quota

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

const quota = 4 << 20

func TestQuotaExceededThenRecovered(t *testing.T) {
	s := harness.Start(t, fmt.Sprintf("--quota-backend-bytes=%d", quota), "--controllers=false", "--unsafe-no-fsync")
	c := s.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	names := fill(ctx, t, c, "a")
	r := s.Run("kubectl", "", "create", "configmap", "one-more", "--from-literal=k=v")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "database space exceeded") || strings.Contains(r.Stderr, s.DataDir) {
		t.Errorf("kubectl create past the quota: exit %d, stderr %q; want an error saying database space exceeded, naming no path", r.ExitCode, r.Stderr)
	}
	r = s.Run("kubectl", "", "label", "configmap", names[0], "x=y")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "database space exceeded") {
		t.Errorf("kubectl label (a patch) past the quota: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	if r := s.Run("kubectl", "", "get", "configmaps", "-o", "name"); r.ExitCode != 0 || strings.Count(r.Stdout, "configmap/") < len(names) {
		t.Errorf("kubectl get past the quota: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	if r := s.Run("minictl", "", "maintenance", "status"); r.ExitCode != 0 || !strings.Contains(r.Stdout, "NOSPACE (quota)") {
		t.Errorf("minictl maintenance status past the quota: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	if !strings.Contains(s.Log(), "database space alarm raised") {
		t.Error("the server's log does not say the alarm was raised")
	}
	if r := s.Run("kubectl", "", "delete", "configmap", names[0]); r.ExitCode != 0 {
		t.Fatalf("kubectl delete past the quota: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	deleteAll(ctx, t, c, names[1:])

	// The deletes' events hold the values until the history is trimmed.
	r = s.Run("minictl", "", "maintenance", "compact", "--keep-history=0")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "compacted") || strings.Contains(r.Stdout, "NOSPACE") {
		t.Fatalf("minictl maintenance compact: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	if r := s.Run("kubectl", "", "create", "configmap", "after-compact", "--from-literal=k=v"); r.ExitCode != 0 {
		t.Fatalf("kubectl create after the compaction: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	if !strings.Contains(s.Log(), "database space alarm cleared") {
		t.Error("the server's log does not say the alarm was cleared")
	}

	// Again, recovered by a restart this time: a shorter history is
	// trimmed at start, and --compact-on-start gives the file back.
	deleteAll(ctx, t, c, fill(ctx, t, c, "b"))
	before := fileSize(t, s)
	s.RestartWith("--watch-history=10", "--compact-on-start")
	if after := fileSize(t, s); after >= before {
		t.Errorf("database file %d bytes after a restart with --compact-on-start, %d before", after, before)
	}
	if _, err := s.Client().CoreV1().ConfigMaps("default").Create(ctx, configMap("after-restart"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create after the restart: %v", err)
	}
}

// fill creates ConfigMaps of 16 KiB until the server refuses one, checks
// the refusal, and returns the names it created.
func fill(ctx context.Context, t *testing.T, c kubernetes.Interface, prefix string) []string {
	t.Helper()
	var names []string
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s-%04d", prefix, i)
		_, err := c.CoreV1().ConfigMaps("default").Create(ctx, configMap(name), metav1.CreateOptions{})
		if err == nil {
			names = append(names, name)
			if i > 2*quota/(16<<10) {
				t.Fatalf("%d ConfigMaps of 16 KiB fitted a quota of %d bytes", i, quota)
			}
			continue
		}
		var st *apierrors.StatusError
		if !errors.As(err, &st) {
			t.Fatalf("create past the quota: %v, want a Status", err)
		}
		if s := st.ErrStatus; s.Code != http.StatusInternalServerError || s.Reason != metav1.StatusReasonInternalError ||
			s.Message != "Internal error occurred: etcdserver: mvcc: database space exceeded" {
			t.Fatalf("create past the quota: %d %s %q; want kube-apiserver's 500 for etcd's NOSPACE", s.Code, s.Reason, s.Message)
		}
		return names
	}
}

func deleteAll(ctx context.Context, t *testing.T, c kubernetes.Interface, names []string) {
	t.Helper()
	for _, n := range names {
		if err := c.CoreV1().ConfigMaps("default").Delete(ctx, n, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete past the quota: %v", err)
		}
	}
}

func configMap(name string) *corev1.ConfigMap {
	return configMapWith(name, strings.Repeat("x", 16<<10))
}

func configMapWith(name, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": value}}
}

func fileSize(t *testing.T, s *harness.Server) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(s.DataDir, "miniapi.db"))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
