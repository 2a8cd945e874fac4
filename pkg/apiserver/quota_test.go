package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// startQuotaServer starts a test server over a bbolt store with a quota of
// quota bytes in dir.
func startQuotaServer(t *testing.T, dir string, quota int64) *testServer {
	t.Helper()
	store, err := boltstore.Open(filepath.Join(dir, "miniapi.db"), boltstore.Options{QuotaBytes: quota})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	// The wrap hands the server this store instead of the harness's.
	return startTestServerOver(t, Config{}, func(storage.Store) storage.Store { return store })
}

func TestQuotaRefusesWritesWith500AndServesReadsAndDeletes(t *testing.T) {
	dir := t.TempDir()
	ts := startQuotaServer(t, dir, 1<<20)
	c := ts.client(t)
	ctx := t.Context()
	cms := c.CoreV1().ConfigMaps("default")

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{
		NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	data := map[string]string{"k": strings.Repeat("x", 8<<10)}
	var names []string
	var refused error
	for i := 0; refused == nil; i++ {
		name := fmt.Sprintf("cm-%04d", i)
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{})
		if err != nil {
			refused = err
			break
		}
		names = append(names, name)
		if i > 1000 {
			t.Fatal("1000 creates of 8 KiB fitted a 1 MiB quota")
		}
	}
	checkNoSpace := func(what string, err error) {
		t.Helper()
		st, ok := err.(apierrors.APIStatus)
		if !ok {
			t.Fatalf("%s past the quota: %v, want a Status", what, err)
		}
		s := st.Status()
		if s.Code != http.StatusInternalServerError || s.Reason != metav1.StatusReasonInternalError ||
			!strings.Contains(s.Message, "etcdserver: mvcc: database space exceeded") {
			t.Errorf("%s past the quota: %d %s %q, want 500 InternalError with etcd's database space exceeded", what, s.Code, s.Reason, s.Message)
		}
		if strings.Contains(s.Message, dir) || strings.Contains(s.Message, "miniapi.db") {
			t.Errorf("%s past the quota: the message names the database's path: %q", what, s.Message)
		}
	}
	checkNoSpace("create", refused)

	cm, err := cms.Get(ctx, names[0], metav1.GetOptions{})
	if err != nil {
		t.Fatalf("GET past the quota: %v", err)
	}
	cm.Data["k"] = "changed"
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	checkNoSpace("update", err)
	_, err = cms.Patch(ctx, names[0], "application/merge-patch+json", []byte(`{"data":{"k":"patched"}}`), metav1.PatchOptions{})
	checkNoSpace("patch", err)

	if list, err := cms.List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != len(names) {
		t.Fatalf("LIST past the quota: %v", err)
	}
	code, _, body := ts.do(t, http.MethodGet, maintenanceStatusPath, "", "")
	var st storage.SpaceStatus
	if err := json.Unmarshal([]byte(body), &st); code != http.StatusOK || err != nil || st.Alarm != storage.AlarmNoSpace {
		t.Errorf("maintenance status past the quota: %d %s", code, body)
	}
	if _, _, metrics := ts.do(t, http.MethodGet, "/metrics", "", ""); !strings.Contains(metrics, "miniapi_storage_space_alarm 1") {
		t.Errorf("/metrics does not show the alarm raised")
	}

	// A pod on a node is only marked by its delete (an update): it passes.
	if err := c.CoreV1().Pods("default").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Errorf("DELETE of a pod past the quota: %v", err)
	}
	for _, name := range names {
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("DELETE past the quota: %v", err)
		}
	}

	// The deletes' events still hold the values; trimming the history
	// and compacting brings the store back below the quota.
	code, _, body = ts.do(t, http.MethodPost, maintenanceCompactPath+"?keepHistory=0", "", "")
	var res storage.CompactResult
	if err := json.Unmarshal([]byte(body), &res); code != http.StatusOK || err != nil || res.After.Alarm != "" {
		t.Fatalf("compact: %d %s", code, body)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}, Data: data}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create after the compaction: %v", err)
	}
	if _, _, metrics := ts.do(t, http.MethodGet, "/metrics", "", ""); !strings.Contains(metrics, "miniapi_storage_space_alarm 0") {
		t.Errorf("/metrics does not show the alarm cleared")
	}
}
