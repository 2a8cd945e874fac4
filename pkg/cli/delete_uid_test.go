package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// TestDeleteObjectUID: the uid the wait follows comes from the DELETE
// answer, whether the server answers with the object or with a Status.
func TestDeleteObjectUID(t *testing.T) {
	answers := map[string]string{
		"/api/v1/namespaces/d/serviceaccounts/obj":    `{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"obj","uid":"u-1"}}`,
		"/api/v1/namespaces/d/serviceaccounts/status": `{"kind":"Status","apiVersion":"v1","status":"Success","details":{"name":"status","uid":"u-2"}}`,
		"/api/v1/namespaces/d/serviceaccounts/bare":   `{"kind":"Status","apiVersion":"v1","status":"Success"}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodDelete {
			http.Error(w, "want DELETE", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answers[r.URL.Path]))
	}))
	defer srv.Close()
	raw, err := rest.UnversionedRESTClientFor(&rest.Config{Host: srv.URL,
		ContentConfig: rest.ContentConfig{NegotiatedSerializer: scheme.Codecs.WithoutConversion()}})
	if err != nil {
		t.Fatal(err)
	}
	mapping := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, Scope: meta.RESTScopeNamespace}
	for name, want := range map[string]string{"obj": "u-1", "status": "u-2", "bare": ""} {
		info := &objectInfo{Mapping: mapping, Namespace: "d", Name: name}
		uid, err := deleteObject(context.Background(), raw, info, metav1.DeleteOptions{})
		if err != nil || string(uid) != want {
			t.Errorf("%s: uid %q err %v, want %q", name, uid, err, want)
		}
	}
}
