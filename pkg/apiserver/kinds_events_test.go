package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

const (
	coreEvents = "/api/v1/namespaces/default/events"
	newEvents  = "/apis/events.k8s.io/v1/namespaces/default/events"
	// manualEvent is the events.k8s.io/v1 event of reference section 11.
	manualEvent = `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"web-0.manual1"},` +
		`"eventTime":"2026-12-01T08:46:30.000000Z","reportingController":"example.com/my-controller","reportingInstance":"my-controller-1",` +
		`"action":"Testing","reason":"Tested","type":"Normal","note":"A note written with events.k8s.io/v1",` +
		`"regarding":{"apiVersion":"v1","kind":"Pod","name":"web-0","namespace":"default"}}`
	// jobEvent is a core/v1 event as kube-controller-manager writes one.
	jobEvent = `{"apiVersion":"v1","kind":"Event","metadata":{"name":"pi.18ed14d7190e62e7"},` +
		`"involvedObject":{"apiVersion":"batch/v1","kind":"Job","name":"pi","namespace":"default","uid":"5249abb0"},` +
		`"reason":"SuccessfulCreate","message":"Created pod: pi-9zspm","source":{"component":"job-controller"},` +
		`"firstTimestamp":"2026-12-01T08:45:40Z","lastTimestamp":"2026-12-01T08:45:40Z","count":1,"type":"Normal","reportingComponent":"job-controller","reportingInstance":""}`
)

// withoutMeta drops the fields that change from run to run.
func withoutMeta(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	md := m["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if md[k] == nil || md[k] == "" {
			t.Errorf("metadata.%s missing in %s", k, body)
		}
		delete(md, k)
	}
	// managedFields hold write times; ssa_test.go checks them.
	delete(md, "managedFields")
	return m
}

func sameJSON(t *testing.T, what string, got map[string]any, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	ws, _ := json.Marshal(w)
	if string(g) != string(ws) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, ws)
	}
}

// An event created through events.k8s.io/v1 reads back through both APIs
// with kube's field mapping (reference section 11).
func TestEventCreatedViaEventsReadViaCore(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, "POST", newEvents, "application/json", manualEvent)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	sameJSON(t, "create answer", withoutMeta(t, body), `{"kind":"Event","apiVersion":"events.k8s.io/v1",
		"metadata":{"name":"web-0.manual1","namespace":"default"},
		"eventTime":"2026-12-01T08:46:30.000000Z","reportingController":"example.com/my-controller","reportingInstance":"my-controller-1",
		"action":"Testing","reason":"Tested","regarding":{"kind":"Pod","namespace":"default","name":"web-0","apiVersion":"v1"},
		"note":"A note written with events.k8s.io/v1","type":"Normal",
		"deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}`)

	code, _, body = ts.do(t, "GET", coreEvents+"/web-0.manual1", "", "")
	if code != 200 {
		t.Fatalf("core get: %d %s", code, body)
	}
	sameJSON(t, "core get", withoutMeta(t, body), `{"kind":"Event","apiVersion":"v1",
		"metadata":{"name":"web-0.manual1","namespace":"default"},
		"involvedObject":{"kind":"Pod","namespace":"default","name":"web-0","apiVersion":"v1"},
		"reason":"Tested","message":"A note written with events.k8s.io/v1","source":{},
		"firstTimestamp":null,"lastTimestamp":null,"type":"Normal","eventTime":"2026-12-01T08:46:30.000000Z",
		"action":"Testing","reportingComponent":"example.com/my-controller","reportingInstance":"my-controller-1"}`)

	code, _, body = ts.do(t, "GET", newEvents+"/web-0.manual1", "", "")
	if code != 200 || !strings.Contains(body, `"note":"A note written with events.k8s.io/v1"`) || !strings.Contains(body, `"apiVersion":"events.k8s.io/v1"`) {
		t.Errorf("events.k8s.io get: %d %s", code, body)
	}
	// The Table through either API is kube's event Table.
	for _, path := range []string{coreEvents, newEvents} {
		code, _, body = ts.do(t, "GET", path, "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		var table metav1.Table
		if err := json.Unmarshal([]byte(body), &table); err != nil || code != 200 || len(table.Rows) != 1 || len(table.ColumnDefinitions) != 10 {
			t.Fatalf("%s table: %d %s", path, code, body)
		}
		cells, _ := json.Marshal(table.Rows[0].Cells[1:])
		if want := `["Normal","Tested","pod/web-0","","example.com/my-controller, my-controller-1","A note written with events.k8s.io/v1","<invalid>",1,"web-0.manual1"]`; string(cells) != want &&
			!strings.HasPrefix(string(cells), `["Normal","Tested","pod/web-0","","example.com/my-controller, my-controller-1","A note written with events.k8s.io/v1",`) {
			t.Errorf("%s row cells %s", path, cells)
		}
		if table.ColumnDefinitions[0].Name != "Last Seen" || table.ColumnDefinitions[9].Name != "Name" {
			t.Errorf("%s columns %+v", path, table.ColumnDefinitions)
		}
	}
}

// A core/v1 event written by a controller reads, lists (with field
// selectors of each API) and deletes through events.k8s.io/v1.
func TestEventCreatedViaCoreReadViaEvents(t *testing.T) {
	ts := startTestServer(t)
	if code, _, body := ts.do(t, "POST", coreEvents, "application/json", jobEvent); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	code, _, body := ts.do(t, "GET", newEvents+"/pi.18ed14d7190e62e7", "", "")
	if code != 200 {
		t.Fatalf("get: %d %s", code, body)
	}
	sameJSON(t, "events.k8s.io get", withoutMeta(t, body), `{"kind":"Event","apiVersion":"events.k8s.io/v1",
		"metadata":{"name":"pi.18ed14d7190e62e7","namespace":"default"},
		"eventTime":null,"reportingController":"job-controller","reason":"SuccessfulCreate",
		"regarding":{"kind":"Job","namespace":"default","name":"pi","uid":"5249abb0","apiVersion":"batch/v1"},
		"note":"Created pod: pi-9zspm","type":"Normal","deprecatedSource":{"component":"job-controller"},
		"deprecatedFirstTimestamp":"2026-12-01T08:45:40Z","deprecatedLastTimestamp":"2026-12-01T08:45:40Z","deprecatedCount":1}`)

	for query, n := range map[string]int{"regarding.kind=Job": 1, "regarding.kind=Pod": 0, "type=Normal,reason=SuccessfulCreate": 1, "source=job-controller": 1} {
		code, _, body := ts.do(t, "GET", newEvents+"?fieldSelector="+query, "", "")
		var list eventsv1.EventList
		if err := json.Unmarshal([]byte(body), &list); err != nil || code != 200 || len(list.Items) != n || list.Kind != "EventList" || list.APIVersion != "events.k8s.io/v1" {
			t.Errorf("list %s: %d %s", query, code, body)
		}
		if n == 1 && list.Items[0].Note != "Created pod: pi-9zspm" {
			t.Errorf("list %s item %+v", query, list.Items[0])
		}
	}
	if code, _, body := ts.do(t, "GET", newEvents+"?fieldSelector=involvedObject.kind=Job", "", ""); code != http.StatusBadRequest {
		t.Errorf("core's field label on events.k8s.io: %d %s", code, body)
	}
	// The protobuf answer carries the converted object too.
	c := protobufClient(t, ts)
	e, err := c.EventsV1().Events("default").Get(context.Background(), "pi.18ed14d7190e62e7", metav1.GetOptions{})
	if err != nil || e.Note != "Created pod: pi-9zspm" || e.DeprecatedCount != 1 {
		t.Fatalf("protobuf get: %v %+v", err, e)
	}
	if err := c.EventsV1().Events("default").Delete(context.Background(), e.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := ts.do(t, "GET", coreEvents+"/pi.18ed14d7190e62e7", "", ""); code != http.StatusNotFound {
		t.Errorf("core get after delete through events.k8s.io: %d", code)
	}
}

func protobufClient(t *testing.T, ts *testServer) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(&rest.Config{Host: ts.url, ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A watch through events.k8s.io/v1 (JSON and protobuf) sees events
// created, changed and deleted through core/v1, converted.
func TestEventsWatchSeesCoreWrites(t *testing.T) {
	ts := startTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var watchers []watch.Interface
	for _, c := range []kubernetes.Interface{ts.client(t), protobufClient(t, ts)} {
		w, err := c.EventsV1().Events("default").Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		watchers = append(watchers, w)
	}
	meta, err := metadata.NewForConfig(&rest.Config{Host: ts.url})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := meta.Resource(schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}).Namespace("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer mw.Stop()
	core := ts.client(t).CoreV1().Events("default")
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-0", Namespace: "default"},
		Reason:         "Hand", Message: "first", Type: "Normal", Count: 1,
	}
	created, err := core.Create(ctx, ev, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Count = 2
	if _, err := core.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := core.Delete(ctx, "e1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// A metadata-only watch (protobuf PartialObjectMetadata) of the
	// converted resource.
	for _, want := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted} {
		select {
		case got := <-mw.ResultChan():
			m, ok := got.Object.(*metav1.PartialObjectMetadata)
			if got.Type != want || !ok || m.Name != "e1" || m.UID == "" {
				t.Fatalf("metadata watch: %s %#v, want %s", got.Type, got.Object, want)
			}
		case <-ctx.Done():
			t.Fatalf("metadata watch: no %s event", want)
		}
	}
	for i, w := range watchers {
		for _, want := range []struct {
			typ   watch.EventType
			count int32
		}{{watch.Added, 1}, {watch.Modified, 2}, {watch.Deleted, 2}} {
			select {
			case got := <-w.ResultChan():
				e, ok := got.Object.(*eventsv1.Event)
				if got.Type != want.typ || !ok || e.Note != "first" || e.Regarding.Name != "web-0" || e.DeprecatedCount != want.count {
					t.Fatalf("watcher %d: %s %#v, want %s with count %d", i, got.Type, got.Object, want.typ, want.count)
				}
			case <-ctx.Done():
				t.Fatalf("watcher %d: no %s event", i, want.typ)
			}
		}
	}
}

// events.k8s.io/v1 applies kube's strict rules on top of core's, and
// answers in kube's words (reference section 11, "Event validation
// errors"): the kind is core's Event, which stores the objects.
func TestEventsValidation(t *testing.T) {
	ts := startTestServer(t)
	cases := []struct{ body, message string }{
		{`{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"bad1"},"reason":"X","type":"Normal","regarding":{"kind":"Pod","name":"web-0","namespace":"default"}}`,
			`Event \"bad1\" is invalid: eventTime: Required value`},
		{`{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"bad2"},"eventTime":"2026-12-01T08:46:30.000000Z","reportingController":"c","reportingInstance":"i","action":"A","reason":"X","type":"Weird","regarding":{"kind":"Pod","name":"web-0","namespace":"default"}}`,
			`Event \"bad2\" is invalid: type: Invalid value: \"\": has invalid value: Weird`},
	}
	for _, c := range cases {
		code, _, body := ts.do(t, "POST", newEvents, "application/json", c.body)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `"message":"`+c.message+`"`) {
			t.Errorf("%d %s\nwant message %s", code, body, c.message)
		}
	}
	if code, _, body := ts.do(t, "POST", newEvents, "application/json", manualEvent); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	code, _, body := ts.do(t, "PATCH", newEvents+"/web-0.manual1", "application/merge-patch+json", `{"reason":"Changed"}`)
	if want := `reason: Invalid value: \"Changed\": field is immutable`; code != http.StatusUnprocessableEntity || !strings.Contains(body, want) {
		t.Errorf("patch reason: %d %s", code, body)
	}
	// core/v1 keeps its lenient rules for the same object.
	if code, _, body := ts.do(t, "PATCH", coreEvents+"/web-0.manual1", "application/merge-patch+json", `{"reason":"Changed"}`); code != 200 {
		t.Errorf("core patch reason: %d %s", code, body)
	}
	// A core event with no eventTime is fine through core/v1.
	if code, _, body := ts.do(t, "POST", coreEvents, "application/json",
		`{"apiVersion":"v1","kind":"Event","metadata":{"name":"core1"},"involvedObject":{"kind":"Pod","name":"web-0","namespace":"default"},"reason":"Hand","message":"core/v1 event with no source","type":"Normal"}`); code != http.StatusCreated {
		t.Errorf("core create: %d %s", code, body)
	}
}

// Discovery lists events.k8s.io/v1 events as kube-apiserver does, with
// the storage version hash of core/v1 Event, which stores them.
func TestEventsDiscovery(t *testing.T) {
	ts := startTestServer(t)
	code, _, body := ts.do(t, "GET", "/apis/events.k8s.io/v1", "", "")
	want := `{"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ev"],"storageVersionHash":"r2yiGXH7wu8="}`
	if code != 200 || !strings.Contains(body, want) {
		t.Errorf("discovery: %d %s", code, body)
	}
}
