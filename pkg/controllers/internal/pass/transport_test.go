package pass

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/miniapi/miniapi/pkg/journal"
)

// answer is a RoundTripper that answers every request with one body.
type answer struct {
	contentType string
	body        []byte
	code        int
}

func (a answer) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: a.code, Header: http.Header{"Content-Type": {a.contentType}},
		Body: io.NopCloser(bytes.NewReader(a.body))}, nil
}

func encodeProtobuf(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestResourceVersionOfAWriteAnswer(t *testing.T) {
	rs := &appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", ResourceVersion: "42", Labels: map[string]string{"app": "web"}},
		Spec:       appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	status := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusSuccess,
		ListMeta: metav1.ListMeta{ResourceVersion: "7"}}
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"protobuf object", "application/vnd.kubernetes.protobuf", encodeProtobuf(t, rs), "42"},
		{"protobuf status", "application/vnd.kubernetes.protobuf", encodeProtobuf(t, status), ""},
		{"json object", "application/json", []byte(`{"kind":"ReplicaSet","metadata":{"name":"web-1","resourceVersion":"43"}}`), "43"},
		{"json status", "application/json", []byte(`{"kind":"Status","metadata":{"resourceVersion":"8"}}`), ""},
		{"garbage", "application/vnd.kubernetes.protobuf", []byte("k8s\x00\xff\xff"), ""},
	} {
		if got := resourceVersionOf(tc.contentType, tc.body); got != tc.want {
			t.Errorf("%s: resourceVersion %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestWriteOf(t *testing.T) {
	for path, want := range map[string]journal.Write{
		"/apis/apps/v1/namespaces/ns/replicasets/web-1/scale": {Verb: "update", Resource: "replicasets/scale", Namespace: "ns", Name: "web-1"},
		"/api/v1/namespaces/ns/pods":                          {Verb: "update", Resource: "pods", Namespace: "ns"},
		"/api/v1/nodes/n1/status":                             {Verb: "update", Resource: "nodes/status", Name: "n1"},
		"/api/v1/namespaces/ns":                               {Verb: "update", Resource: "namespaces", Name: "ns"},
	} {
		if got := writeOf("update", path); got != want {
			t.Errorf("writeOf(%s) = %+v, want %+v", path, got, want)
		}
	}
}

// TestAPassHoldsTheWritesMadeAfterItsLogLine: the replicaset controller
// logs, then writes status; the journal's pass has both writes, the
// answer reaches the client whole, and reads are not noted.
func TestAPassHoldsTheWritesMadeAfterItsLogLine(t *testing.T) {
	j := journal.New(10, nil)
	ctx := ForController(WithJournal(context.Background(), j), "replicaset")
	rt := WrapTransport(answer{contentType: "application/json", code: 201, body: []byte(`{"kind":"Pod","metadata":{"resourceVersion":"10"}}`)})

	ctx, p := Begin(ctx)
	send := func(method, path string) string {
		req, _ := http.NewRequestWithContext(ctx, method, "http://x"+path, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := send("POST", "/api/v1/namespaces/ns/pods"); !strings.Contains(got, `"resourceVersion":"10"`) {
		t.Fatalf("the client got %q, want the server's answer", got)
	}
	send("GET", "/api/v1/namespaces/ns/pods")
	Log(ctx, slog.New(slog.DiscardHandler), "ReplicaSet", &metav1.ObjectMeta{Namespace: "ns", Name: "web-1"}, "reconciled replicaset", "replicaset", "ns/web-1", "action", "created 1 pods")
	send("PUT", "/apis/apps/v1/namespaces/ns/replicasets/web-1/status")
	if j.Last() != 0 {
		t.Fatalf("the pass reached the journal before it ended")
	}
	p.End(errors.New("conflict"))

	ps, _ := j.Since(0, journal.Filter{})
	if len(ps) != 1 {
		t.Fatalf("journal holds %d passes, want 1", len(ps))
	}
	want := []journal.Write{
		{Verb: "create", Resource: "pods", Namespace: "ns", ResourceVersion: "10"},
		{Verb: "update", Resource: "replicasets/status", Namespace: "ns", Name: "web-1", ResourceVersion: "10"},
	}
	if ps[0].Error != "conflict" {
		t.Errorf("error = %q, want Reconcile's", ps[0].Error)
	}
	if got := ps[0].Writes; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("writes = %+v, want %+v", got, want)
	}
}

func TestBeginWithoutAJournalCostsNothing(t *testing.T) {
	ctx := context.Background()
	got, p := Begin(ctx)
	if got != ctx || p != nil {
		t.Fatalf("Begin without a journal = %v, %v; want ctx unchanged and no pass", got, p)
	}
	p.End(nil) // a nil pass ends quietly
}
