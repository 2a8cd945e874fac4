package apiserver

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// jsonPatchOfTests is a JSON patch of n operations that change nothing.
func jsonPatchOfTests(n int) string {
	op := `{"op":"test","path":"/metadata/name","value":"c"}`
	return "[" + strings.TrimSuffix(strings.Repeat(op+",", n), ",") + "]"
}

// A JSON patch of more than 10,000 operations is refused with kube's 413;
// one of 10,000 is applied.
func TestJSONPatchOperationCap(t *testing.T) {
	ts := startTestServer(t)
	path := "/api/v1/namespaces/default/configmaps"
	if code, _, body := ts.do(t, "POST", path, "application/json", `{"metadata":{"name":"c"}}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	code, _, body := ts.do(t, "PATCH", path+"/c", jsonPatchType, jsonPatchOfTests(10001))
	st := status(t, body)
	if code != http.StatusRequestEntityTooLarge || st.Reason != metav1.StatusReasonRequestEntityTooLarge ||
		st.Message != "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001" {
		t.Fatalf("10,001 operations: %d %+v", code, st)
	}
	if code, _, body := ts.do(t, "PATCH", path+"/c", jsonPatchType, jsonPatchOfTests(10000)); code != http.StatusOK {
		t.Fatalf("10,000 operations: %d %s", code, body)
	}
}
