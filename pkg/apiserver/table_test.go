package apiserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// TestTables: lists, single objects and watch events come as Tables when
// kubectl asks, with PartialObjectMetadata rows by default, and column
// definitions only in the first watch event.
func TestTables(t *testing.T) {
	ts := startTestServer(t)
	if code, _, body := ts.do(t, "POST", deployments, "application/json", webDeployment); code != 201 {
		t.Fatal(body)
	}
	var table metav1.Table
	code, _, body := ts.do(t, "GET", deployments+"?limit=500", "", "", "Accept", tableAccept)
	if err := json.Unmarshal([]byte(body), &table); code != 200 || err != nil {
		t.Fatalf("%d %v %s", code, err, body)
	}
	if table.Kind != "Table" || len(table.ColumnDefinitions) == 0 || len(table.Rows) != 1 || table.ResourceVersion == "" {
		t.Fatalf("list table: %s", body)
	}
	if !strings.Contains(string(table.Rows[0].Object.Raw), `"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1"`) {
		t.Errorf("row object: %s", table.Rows[0].Object.Raw)
	}
	// The deployment has managedFields, but a row's metadata leaves them
	// out, as kube-apiserver's does.
	if strings.Contains(string(table.Rows[0].Object.Raw), "managedFields") {
		t.Errorf("row object carries managedFields: %s", table.Rows[0].Object.Raw)
	}
	_, _, body = ts.do(t, "GET", deployments+"/web?includeObject=None", "", "", "Accept", tableAccept)
	if !strings.HasPrefix(body, `{"kind":"Table"`) || !strings.Contains(body, `"object":null`) {
		t.Errorf("single object table with includeObject=None: %s", body)
	}

	req, _ := http.NewRequest("GET", ts.url+deployments+"?watch=true&resourceVersion="+table.ResourceVersion, nil)
	req.Header.Set("Accept", tableAccept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	for i, label := range []string{"a", "b"} {
		if code, _, body := ts.do(t, "PATCH", deployments+"/web", "application/merge-patch+json", `{"metadata":{"labels":{"l":"`+label+`"}}}`); code != 200 {
			t.Fatal(body)
		}
		done := make(chan bool, 1)
		go func() { done <- lines.Scan() }()
		select {
		case ok := <-done:
			if !ok {
				t.Fatal("watch ended")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no watch event")
		}
		l := lines.Text()
		hasColumns := strings.Contains(l, `"columnDefinitions":[`)
		if !strings.HasPrefix(l, `{"type":"MODIFIED","object":{"kind":"Table"`) || hasColumns != (i == 0) ||
			(i > 0 && !strings.Contains(l, `"columnDefinitions":null`)) {
			t.Errorf("event %d: %s", i, l)
		}
	}
}

// TestDeleteCollection deletes the selected objects only.
func TestDeleteCollection(t *testing.T) {
	ts := startTestServer(t)
	pods := "/api/v1/namespaces/default/pods"
	for _, p := range []string{"a:x", "b:x", "c:y"} {
		name, app, _ := strings.Cut(p, ":")
		body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","labels":{"app":"` + app + `"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
		if code, _, out := ts.do(t, "POST", pods, "application/json", body); code != 201 {
			t.Fatal(out)
		}
	}
	if code, _, out := ts.do(t, "DELETE", pods+"?labelSelector=app%3Dx", "", ""); code != 200 || !strings.Contains(out, `"kind":"PodList"`) {
		t.Fatalf("deletecollection: %d %s", code, out)
	}
	_, _, out := ts.do(t, "GET", pods, "", "")
	if strings.Contains(out, `"name":"a"`) || strings.Contains(out, `"name":"b"`) || !strings.Contains(out, `"name":"c"`) {
		t.Errorf("after deletecollection: %s", out)
	}
}

// TestMetrics: /metrics counts requests by verb, resource and code.
func TestMetrics(t *testing.T) {
	ts := startTestServer(t)
	ts.do(t, "GET", deployments+"/nope", "", "")
	_, _, out := ts.do(t, "GET", "/metrics", "", "")
	for _, want := range []string{
		`apiserver_request_total{code="404",resource="deployments",verb="get"} 1`,
		// 4 namespaces, 2 priority classes, 10 bootstrap ClusterRoles and 4
		// ClusterRoleBindings, the kubernetes Service and its ClusterIP.
		`miniapi_storage_revision 22`,
		`apiserver_watches_open 0`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
