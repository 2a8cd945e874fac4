package pass

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniapi/miniapi/pkg/journal"
)

func TestLogWritesTheLineAndRecordsThePass(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	j := journal.New(10, nil)
	ctx := ForController(WithJournal(context.Background(), j), "replicaset")
	isController := true
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", Generation: 2,
		OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "web", Controller: &isController}}}}

	Log(ctx, log, "ReplicaSet", rs, "reconciled replicaset", "replicaset", "ns/web-1", "desired", 3, "observed", 1, "action", "created 2 pods")

	if got, want := buf.String(), `level=INFO msg="reconciled replicaset" replicaset=ns/web-1 desired=3 observed=1 action="created 2 pods"`+"\n"; got != want {
		t.Errorf("log line = %q, want %q", got, want)
	}
	ps, _ := j.Since(0, journal.Filter{})
	if len(ps) != 1 {
		t.Fatalf("journal holds %d passes, want 1", len(ps))
	}
	p := ps[0]
	if p.Controller != "replicaset" || p.Object != (journal.Ref{Kind: "ReplicaSet", Namespace: "ns", Name: "web-1"}) || p.Generation != 2 ||
		p.Owner == nil || *p.Owner != (journal.Ref{Kind: "Deployment", Namespace: "ns", Name: "web"}) ||
		p.Desired != "3" || p.Observed != "1" || p.Action != "created 2 pods" {
		t.Errorf("recorded pass = %+v", p)
	}
}

func TestLogWithoutAJournalOnlyLogs(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	ctx := ForController(WithJournal(context.Background(), nil), "deployment")
	Log(ctx, log, "Deployment", &metav1.ObjectMeta{Name: "web"}, "reconciled deployment", "deployment", "ns/web", "action", "x")
	if !strings.Contains(buf.String(), `msg="reconciled deployment"`) {
		t.Errorf("log = %q, want the line", buf.String())
	}
}

func TestLogRecordsNothingBeforeTheControllerIsNamed(t *testing.T) {
	j := journal.New(10, nil)
	ctx := WithJournal(context.Background(), j)
	Log(ctx, slog.New(slog.DiscardHandler), "Deployment", &metav1.ObjectMeta{Name: "web"}, "reconciled deployment", "deployment", "ns/web")
	if j.Last() != 0 {
		t.Errorf("journal recorded %d passes without a controller name, want 0", j.Last())
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
