package apiserver

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/storage"
	"github.com/miniapi/miniapi/pkg/storage/boltstore"
)

// trailingStore is a store whose Revision() has not caught up, as an
// etcd store's has not with the writes of another process on the same
// etcd: its reads are current, its cached revision is old.
type trailingStore struct {
	storage.Store
	stale int64
}

func (s trailingStore) Revision() int64 { return s.stale }

// TestListAtRVAnotherServerWrote: a list at a resourceVersion that is
// newer than the store's cached Revision(), but that the store's reads
// have reached, is answered (NotOlderThan and Exact, a whole collection
// and one name); a resourceVersion the store has not reached is still
// "Too large" (504).
func TestListAtRVAnotherServerWrote(t *testing.T) {
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), boltstore.Options{HistorySize: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer bolt.Close()
	ctx := context.Background()
	api, err := New(Config{Store: trailingStore{Store: bolt, stale: 1}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(api)
	defer hs.Close()
	defer func() { _ = api.EndWatches(ctx) }()
	cms := (&testServer{api: api, url: hs.URL}).client(t).CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "written"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	for _, opts := range []metav1.ListOptions{
		{ResourceVersion: cm.ResourceVersion},
		{ResourceVersion: cm.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
		{ResourceVersion: cm.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, FieldSelector: "metadata.name=written"},
	} {
		list, err := cms.List(ctx, opts)
		if err != nil || len(list.Items) != 1 {
			t.Errorf("list %+v: %v, %v; want the ConfigMap written at %s", opts, list, err, cm.ResourceVersion)
		}
	}

	rv, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	future := strconv.FormatInt(rv+100, 10)
	for _, opts := range []metav1.ListOptions{
		{ResourceVersion: future},
		{ResourceVersion: future, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
		{ResourceVersion: future, FieldSelector: "metadata.name=written"},
	} {
		if _, err := cms.List(ctx, opts); !apierrors.IsTimeout(err) {
			t.Errorf("list %+v: %v, want 504 Too large resource version", opts, err)
		}
	}
}
