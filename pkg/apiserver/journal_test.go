package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/miniapi/miniapi/pkg/journal"
)

func addPasses(j *journal.Journal) {
	j.Add(journal.Record{Controller: "deployment", Object: journal.Ref{Kind: "Deployment", Namespace: "a", Name: "web"},
		Generation: 1, Fields: []any{"desired", "3 replicas", "observed", "no replicasets", "action", "created new replicaset web-1 with 3 replicas"}})
	j.Add(journal.Record{Controller: "replicaset", Object: journal.Ref{Kind: "ReplicaSet", Namespace: "a", Name: "web-1"},
		Owner: journal.Ref{Kind: "Deployment", Namespace: "a", Name: "web"}, Fields: []any{"desired", 3, "observed", 0, "action", "created 3 pods"}})
	j.Add(journal.Record{Controller: "deployment", Object: journal.Ref{Kind: "Deployment", Namespace: "b", Name: "api"},
		Fields: []any{"action", "none (rollout complete)"}})
}

func listJournal(t *testing.T, ts *testServer, query string) journalList {
	t.Helper()
	body := mustDo(t, ts, 200, "GET", "/miniapi/v1/journal"+query, "", "")
	var l journalList
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return l
}

func TestJournalListSelectsAnObjectAndItsChildren(t *testing.T) {
	j := journal.New(100, nil)
	ts := startTestServerWith(t, Config{Journal: j})
	addPasses(j)

	all := listJournal(t, ts, "")
	if all.Kind != "ReconcileJournal" || all.APIVersion != "miniapi/v1" || all.LastSeq != 3 || len(all.Items) != 3 {
		t.Fatalf("whole journal = %+v", all)
	}
	web := listJournal(t, ts, "?namespace=a&kind=Deployment&name=web")
	if len(web.Items) != 2 || web.Items[0].Action != "created new replicaset web-1 with 3 replicas" ||
		web.Items[1].Object.Name != "web-1" || web.Items[1].Desired != "3" || web.Items[1].Observed != "0" {
		t.Fatalf("deploy/web's passes = %+v, want the deployment's and its replicaset's", web.Items)
	}
	if l := listJournal(t, ts, "?namespace=b"); len(l.Items) != 1 || l.Items[0].Object.Name != "api" {
		t.Fatalf("namespace b = %+v", l.Items)
	}
	if l := listJournal(t, ts, "?since=2"); len(l.Items) != 1 || l.Items[0].Seq != 3 {
		t.Fatalf("since=2 = %+v", l.Items)
	}
	if l := listJournal(t, ts, "?namespace=none"); l.Items == nil || len(l.Items) != 0 {
		t.Fatalf("an empty selection = %+v, want items: []", l)
	}
	mustDo(t, ts, 400, "GET", "/miniapi/v1/journal?since=x", "", "")
}

func TestJournalOffAnswersUnavailable(t *testing.T) {
	ts := startTestServer(t)
	mustDo(t, ts, 503, "GET", "/miniapi/v1/journal", "", "")
}

func TestJournalNeedsTheToken(t *testing.T) {
	j := journal.New(100, nil)
	ts := startTestServerWith(t, Config{Journal: j, Authenticator: staticTokens{
		adminToken: {Username: "admin", UID: "admin-uid", Groups: []string{"system:masters"}},
	}})
	mustDo(t, ts, 401, "GET", "/miniapi/v1/journal", "", "")
	mustDo(t, ts, 200, "GET", "/miniapi/v1/journal", "", "", "Authorization", "Bearer "+adminToken)
}

// TestJournalWatchStreamsNewPassesUntilTheServerEndsWatches: a watch
// without since sends only passes added after it started, as selected,
// and EndWatches ends it.
func TestJournalWatchStreamsNewPassesUntilTheServerEndsWatches(t *testing.T) {
	j := journal.New(100, nil)
	ts := startTestServerWith(t, Config{Journal: j})
	addPasses(j)

	resp, err := http.Get(ts.url + "/miniapi/v1/journal?watch=true&namespace=a&kind=Deployment&name=web")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("watch: %d", resp.StatusCode)
	}
	addPasses(j) // passes 4 (selected), 5 (selected: a child), 6 (not)
	lines := bufio.NewScanner(resp.Body)
	var got []journalEvent
	for len(got) < 2 && lines.Scan() {
		var ev journalEvent
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatalf("%v: %s", err, lines.Text())
		}
		got = append(got, ev)
	}
	if len(got) != 2 || got[0].Type != "ADDED" || got[0].Object.Seq != 4 || got[1].Object.Seq != 5 {
		t.Fatalf("watch events = %+v, want passes 4 and 5 ADDED", got)
	}
	if err := ts.api.EndWatches(context.Background()); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		t.Errorf("after EndWatches the watch sent %s", lines.Text())
	}
}

func TestJournalWatchFromSinceReplaysKeptPasses(t *testing.T) {
	j := journal.New(100, nil)
	ts := startTestServerWith(t, Config{Journal: j})
	addPasses(j)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.url+"/miniapi/v1/journal?watch=true&since=1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	var seqs []uint64
	for len(seqs) < 2 && lines.Scan() {
		var ev journalEvent
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ev.Object.Seq)
	}
	if len(seqs) != 2 || seqs[0] != 2 || seqs[1] != 3 {
		t.Fatalf("watch since=1 sent passes %v, want [2 3]", seqs)
	}
}

// TestStuckJournalWatchIsClosed: a journal watch whose client takes no
// data is ended after the watch write timeout, as every other watch is.
func TestStuckJournalWatchIsClosed(t *testing.T) {
	j := journal.New(5000, nil)
	var logs syncBuffer
	cfg := Config{Journal: j, Limits: Limits{WatchWriteTimeout: 300 * time.Millisecond}}
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	ts := startTestServerOn(t, cfg, nil, smallBuffers)
	dialStuck(t, ts.url, "/miniapi/v1/journal?watch=true")
	waitOpenWatches(t, ts, 1)
	for range 1000 { // 3,000 passes, far more than the sockets' buffers hold
		addPasses(j)
	}
	waitOpenWatches(t, ts, 0)
	if !strings.Contains(logs.String(), `msg="journal watch ended" reason="write timeout"`) {
		t.Errorf("no log line says why the journal watch ended:\n%s", logs.String())
	}
}
