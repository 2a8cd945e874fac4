package apiserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestUIDIsAPrecondition: a write whose body names another uid than the
// stored object's is refused with kube-apiserver's 409, and a matching uid
// goes through.
func TestUIDIsAPrecondition(t *testing.T) {
	ts := startTestServer(t)
	const path = "/api/v1/namespaces/default/events/e1"
	code, _, body := ts.do(t, "POST", "/api/v1/namespaces/default/events", "application/json",
		`{"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m"}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}

	code, _, body = ts.do(t, "PATCH", path, "application/merge-patch+json", `{"metadata":{"uid":"not-the-uid"},"message":"x"}`)
	if code != http.StatusConflict || !strings.Contains(body, `Precondition failed: UID in precondition: not-the-uid, UID in object meta: `) {
		t.Fatalf("patch with another uid: %d %s", code, body)
	}

	code, _, body = ts.do(t, "GET", path, "", "")
	if code != http.StatusOK || !strings.Contains(body, `"message":"m"`) {
		t.Fatalf("the refused patch changed the object: %d %s", code, body)
	}
	uid := body[strings.Index(body, `"uid":"`)+7:]
	uid = uid[:strings.Index(uid, `"`)]
	code, _, body = ts.do(t, "PATCH", path, "application/merge-patch+json", `{"metadata":{"uid":"`+uid+`"},"message":"y"}`)
	if code != http.StatusOK || !strings.Contains(body, `"message":"y"`) {
		t.Fatalf("patch with the object's own uid: %d %s", code, body)
	}
}
