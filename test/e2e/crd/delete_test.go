package crd

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

const widgetCRDPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"

// terminatingWidgetCRD is the reference's CRD right after the delete, as
// `jq '{metadata: (.metadata|del(.managedFields)), status}'` printed it.
const terminatingWidgetCRD = `{
  "metadata": {
    "name": "widgets.example.com",
    "uid": "db3f94b2-fa27-49d7-8ef0-dd07354b15bb",
    "resourceVersion": "611",
    "generation": 1,
    "creationTimestamp": "2026-12-01T08:48:29Z",
    "deletionTimestamp": "2026-12-01T08:48:57Z",
    "finalizers": [
      "customresourcecleanup.apiextensions.k8s.io"
    ]
  },
  "status": {
    "conditions": [
      {
        "type": "NamesAccepted",
        "status": "True",
        "lastTransitionTime": "2026-12-01T08:48:29Z",
        "reason": "NoConflicts",
        "message": "no conflicts found"
      },
      {
        "type": "Established",
        "status": "True",
        "lastTransitionTime": "2026-12-01T08:48:29Z",
        "reason": "InitialNamesAccepted",
        "message": "the initial names have been accepted"
      },
      {
        "type": "Terminating",
        "status": "True",
        "lastTransitionTime": "2026-12-01T08:48:57Z",
        "reason": "InstanceDeletionInProgress",
        "message": "CustomResource deletion is in progress"
      }
    ],
    "acceptedNames": {
      "plural": "widgets",
      "singular": "widget",
      "shortNames": [
        "wg"
      ],
      "kind": "Widget",
      "listKind": "WidgetList"
    },
    "storedVersions": [
      "v1"
    ]
  }
}`

// metadataAndStatus is the reference's jq cut of a CRD.
func metadataAndStatus(t *testing.T, raw []byte) string {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(raw, &crd); err != nil {
		t.Fatalf("CRD: %v\n%s", err, raw)
	}
	crd.ManagedFields = nil
	b, err := json.MarshalIndent(struct {
		Metadata metav1.ObjectMeta                              `json:"metadata"`
		Status   apiextensionsv1.CustomResourceDefinitionStatus `json:"status"`
	}{crd.ObjectMeta, crd.Status}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testDeleteWidgetCRD(t *testing.T, s *harness.Server) {
	expectOut(t, s, "", "get", "crd", "widgets.example.com", "-o", "jsonpath={.metadata.finalizers}")
	if n := strings.Count(ok(t, s, "get", "widgets", "--no-headers").Stdout, "\n"); n != 4 {
		t.Fatalf("%d widgets before the delete, want 4 as the reference", n)
	}
	// miniapi finishes the delete before a poll can see the CRD; a watch
	// sees each state it went through.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rv := strings.Trim(ok(t, s, "get", "crd", "widgets.example.com", "-o", "jsonpath={.metadata.resourceVersion}").Stdout, "\n")
	events := watchEvents(ctx, t, s, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1&fieldSelector=metadata.name%3Dwidgets.example.com&resourceVersion="+rv)

	expectOut(t, s, "customresourcedefinition.apiextensions.k8s.io \"widgets.example.com\" deleted\n", "delete", "crd", "widgets.example.com", "--wait=false")
	list := curl(t, s, "GET", widgetsPath, "")
	res := kubectl(s, "", "get", "widgets")

	first := <-events
	if first.Type != "MODIFIED" {
		t.Fatalf("first event after the delete: %s, want MODIFIED", first.Type)
	}
	if diff := same("the CRD right after the delete", metadataAndStatus(t, first.Object), terminatingWidgetCRD); diff != "" {
		t.Error(diff)
	}
	expectCurl(t, "widgets list right after the delete", list, "HTTP/2 404 \ncontent-type: text/plain; charset=utf-8\n\n404 page not found")
	wantErr := "Error from server (NotFound): Unable to list \"example.com/v1, Resource=widgets\": the server could not find the requested resource (get widgets.example.com)\n"
	if res.ExitCode != 1 || res.Stdout != "" || res.Stderr != wantErr {
		t.Errorf("kubectl get widgets right after the delete:\n got %s\nwant exit 1, stderr %q", res, wantErr)
	}
	for ev := range events {
		if ev.Type == "DELETED" {
			break
		}
	}
	eventually(t, 5*time.Second, func() string {
		if r := curl(t, s, "GET", widgetCRDPath, ""); r.code != http.StatusNotFound {
			return "the CRD is still there: " + r.body
		}
		return ""
	})
	expectOut(t, s, `NAME                  SCOPE        VERSIONS         CREATED AT
gadgets.example.com   Cluster      v1(storage)      2026-12-01T08:48:52Z
things.example.com    Namespaced   v1(storage),v2   2026-12-01T08:48:55Z
`, "get", "crds")

	// The Widgets went with it: a new CRD of the same name starts empty.
	createCRD(t, s, widgetCRD)
	expect(t, s, "", 0, "", "No resources found in default namespace.\n", "get", "widgets")
}

// event is one watch event with its object undecoded.
type event struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// watchEvents opens a watch and returns its events; the channel closes
// when the stream ends or ctx does. It returns once the server answered.
func watchEvents(ctx context.Context, t *testing.T, s *harness.Server, path string) <-chan event {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		t.Fatalf("watch %s: %s", path, resp.Status)
	}
	out := make(chan event, 100)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var ev event
			if dec.Decode(&ev) != nil {
				return
			}
			out <- ev
		}
	}()
	return out
}
