package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/storage"
)

// A malformed resourceVersion is refused with 400 and kube-apiserver's
// message, on a get (which used to ignore it), a list and a watch.
func TestMalformedResourceVersion(t *testing.T) {
	ts := startTestServer(t)
	if code, _, body := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"c"}}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	want := `resourceVersion: Invalid value: "garbage": strconv.ParseUint: parsing "garbage": invalid syntax`
	for _, path := range []string{
		"/api/v1/namespaces/default/configmaps/c?resourceVersion=garbage",
		"/api/v1/namespaces/default/configmaps?resourceVersion=garbage",
		"/api/v1/namespaces/default/configmaps?resourceVersion=garbage&resourceVersionMatch=Exact&fieldSelector=metadata.name%3Dc",
		"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=garbage",
	} {
		code, _, body := ts.do(t, "GET", path, "", "")
		if st := status(t, body); code != http.StatusBadRequest || st.Reason != metav1.StatusReasonBadRequest || st.Message != want {
			t.Errorf("%s: %d %q, want 400 %q", path, code, st.Message, want)
		}
	}
}

// A list with resourceVersionMatch=Exact and fieldSelector metadata.name
// answers the object as it was at that revision, as a list without the
// selector does, not as it is now.
func TestExactListOfOneName(t *testing.T) {
	ts := startTestServer(t)
	path := "/api/v1/namespaces/default/configmaps"
	code, _, body := ts.do(t, "POST", path, "application/json", `{"metadata":{"name":"c"},"data":{"v":"1"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	var created corev1.ConfigMap
	if err := json.Unmarshal([]byte(body), &created); err != nil {
		t.Fatal(err)
	}
	if code, _, body := ts.do(t, "PATCH", path+"/c", mergePatchType, `{"data":{"v":"2"}}`); code != http.StatusOK {
		t.Fatalf("patch: %d %s", code, body)
	}
	rv, _ := strconv.ParseInt(created.ResourceVersion, 10, 64)

	list := func(query string) corev1.ConfigMapList {
		t.Helper()
		code, _, body := ts.do(t, "GET", path+"?"+query, "", "")
		if code != http.StatusOK {
			t.Fatalf("list ?%s: %d %s", query, code, body)
		}
		var l corev1.ConfigMapList
		if err := json.Unmarshal([]byte(body), &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, sel := range []string{"", "&fieldSelector=metadata.name%3Dc"} {
		l := list(fmt.Sprintf("resourceVersion=%d&resourceVersionMatch=Exact%s", rv, sel))
		if len(l.Items) != 1 || l.Items[0].Data["v"] != "1" || l.Items[0].ResourceVersion != created.ResourceVersion || l.ResourceVersion != created.ResourceVersion {
			t.Errorf("Exact list at %d%s: rv %s, items %+v; want v=1 at %d", rv, sel, l.ResourceVersion, l.Items, rv)
		}
		if l := list(fmt.Sprintf("resourceVersion=%d&resourceVersionMatch=Exact%s", rv-1, sel)); len(l.Items) != 0 {
			t.Errorf("Exact list before the create%s: %+v, want none", sel, l.Items)
		}
		if l := list(fmt.Sprintf("resourceVersion=%d%s", rv, sel)); len(l.Items) != 1 || l.Items[0].Data["v"] != "2" {
			t.Errorf("NotOlderThan list%s: %+v, want the current object", sel, l.Items)
		}
	}
}

// expiringStore answers lists at a past revision, and deletes, with the
// ExpiredError it holds, as a store whose history was trimmed would.
type expiringStore struct {
	storage.Store
	err *storage.ExpiredError
}

func (s *expiringStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if opts.Revision > 0 {
		return storage.ListResult{}, s.err
	}
	return s.Store.List(ctx, prefix, opts)
}

func (s *expiringStore) Delete(context.Context, string, int64) (storage.KV, error) {
	return storage.KV{}, s.err
}

// The 410 message names the revision asked for and the oldest one kept
// ("too old resource version: 5 (9)"), never 0: a backend that does not
// know its oldest revision gives the current one instead.
func TestTooOldMessage(t *testing.T) {
	expired := &storage.ExpiredError{}
	var store storage.Store
	ts := startTestServerOver(t, Config{}, func(s storage.Store) storage.Store {
		store = s
		return &expiringStore{Store: s, err: expired}
	})
	path := "/api/v1/namespaces/default/configmaps"
	if code, _, body := ts.do(t, "POST", path, "application/json", `{"metadata":{"name":"c"}}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	cur := store.Revision()
	check := func(method, path, want string) {
		t.Helper()
		code, _, body := ts.do(t, method, path, "", "")
		if st := status(t, body); code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || st.Message != want {
			t.Errorf("%s %s: %d %q, want 410 %q", method, path, code, st.Message, want)
		}
	}

	*expired = storage.ExpiredError{Requested: 5, Oldest: 9}
	check("GET", path+"?resourceVersion=5&resourceVersionMatch=Exact", "too old resource version: 5 (9)")
	check("GET", path+"?resourceVersion=5&resourceVersionMatch=Exact&fieldSelector=metadata.name%3Dc", "too old resource version: 5 (9)")
	check("DELETE", path+"/c", "too old resource version: 5 (9)")

	*expired = storage.ExpiredError{Requested: 5} // etcd did not say which is oldest
	want := fmt.Sprintf("too old resource version: 5 (%d)", cur)
	check("GET", path+"?resourceVersion=5&resourceVersionMatch=Exact", want)
	check("DELETE", path+"/c", want)
}
