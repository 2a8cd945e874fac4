package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/journal"
)

func TestPrintJournalTable(t *testing.T) {
	at := time.Date(2026, 12, 2, 14, 3, 4, 500e6, time.Local)
	var out bytes.Buffer
	p := &journalPrinter{out: &out}
	created := journal.Pass{Seq: 1, Time: at, Controller: "deployment", Object: journal.Ref{Kind: "Deployment", Namespace: "default", Name: "web"},
		Desired: "3 replicas", Observed: "no replicasets", Action: "created new replicaset web-1 with 3 replicas"}
	pods := journal.Pass{Seq: 2, Time: at, Controller: "replicaset", Object: journal.Ref{Kind: "ReplicaSet", Namespace: "default", Name: "web-1"},
		Desired: "3", Observed: "0", Action: "created 3 pods"}
	budget := journal.Pass{Seq: 3, Time: at, Controller: "disruption", Object: journal.Ref{Kind: "PodDisruptionBudget", Namespace: "default", Name: "b"}, Error: "conflict"}
	if err := p.list([]journal.Pass{created}); err != nil {
		t.Fatal(err)
	}
	// Passes printed later (-w) stay aligned with the first rows.
	if err := p.pass(pods); err != nil {
		t.Fatal(err)
	}
	if err := p.pass(budget); err != nil {
		t.Fatal(err)
	}
	want := "TIME           CONTROLLER   OBJECT           DESIRED      OBSERVED         ACTION\n" +
		"14:03:04.500   deployment   deployment/web   3 replicas   no replicasets   created new replicaset web-1 with 3 replicas\n" +
		"14:03:04.500   replicaset   replicaset/web-1   3            0                created 3 pods\n" +
		"14:03:04.500   disruption   poddisruptionbudget/b   <none>       <none>           <none> (failed, will retry)\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPrintJournalDocuments(t *testing.T) {
	var out bytes.Buffer
	p := &journalPrinter{output: "json", out: &out}
	one := journal.Pass{Seq: 7, Controller: "replicaset", Object: journal.Ref{Kind: "ReplicaSet", Name: "r"}, Action: "created 1 pods"}
	if err := p.list([]journal.Pass{one}); err != nil {
		t.Fatal(err)
	}
	if err := p.pass(one); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	var list struct {
		Kind  string
		Items []journal.Pass
	}
	var single journal.Pass
	if err := dec.Decode(&list); err != nil || list.Kind != "List" || len(list.Items) != 1 || list.Items[0].Seq != 7 {
		t.Fatalf("first document = %+v (%v), want a List of pass 7", list, err)
	}
	if err := dec.Decode(&single); err != nil || single.Seq != 7 || single.Action != "created 1 pods" {
		t.Fatalf("second document = %+v (%v), want pass 7 alone", single, err)
	}
}

func TestReadJournalStream(t *testing.T) {
	stream := `{"type":"ADDED","object":{"seq":4,"controller":"deployment","object":{"kind":"Deployment","name":"web"},"action":"a"}}
{"type":"ADDED","object":{"seq":9,"controller":"replicaset","object":{"kind":"ReplicaSet","name":"web-1"},"action":"b"}}
`
	var got []string
	last, err := readJournalStream(strings.NewReader(stream), 3, func(e journal.Pass) error {
		got = append(got, e.Action)
		return nil
	})
	if err != nil || last != 9 || strings.Join(got, ",") != "a,b" {
		t.Fatalf("read %v, last %d, err %v; want a,b, last 9", got, last, err)
	}
	if last, err := readJournalStream(strings.NewReader("not json\n"), 3, func(journal.Pass) error { return nil }); err == nil || last != 3 {
		t.Fatalf("a bad line: last %d, err %v; want 3 and an error", last, err)
	}
}
