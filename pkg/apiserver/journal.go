package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
	"github.com/miniapi/miniapi/pkg/journal"
)

// journalPath serves the controllers' reconcile journal, beside
// historyPath and for the same reason (miniapi's own, so discovery stays
// kube-apiserver's). Query: namespace, kind and name select the passes
// over an object and its children (journal.Filter); since=SEQ keeps the
// passes after that sequence number; watch=true streams new passes.
const journalPath = "/miniapi/v1/journal"

// journalList is the answer of a GET of journalPath.
type journalList struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	// LastSeq is the newest pass's sequence number in the whole journal
	// (selected or not): a watch from it misses nothing after this list.
	LastSeq uint64         `json:"lastSeq"`
	Items   []journal.Pass `json:"items"`
}

// journalEvent is one line of a journal watch, shaped as a Kubernetes
// watch event.
type journalEvent struct {
	Type   string       `json:"type"`
	Object journal.Pass `json:"object"`
}

// serveJournal answers GET journalPath: a list, or with watch=true a stream.
func (s *Server) serveJournal(w http.ResponseWriter, r *http.Request) {
	if s.journal == nil {
		writeError(w, apierrors.NewServiceUnavailable("the reconcile journal is off (miniapi --journal-passes=0)"))
		return
	}
	q := r.URL.Query()
	f := journal.Filter{Namespace: q.Get("namespace"), Kind: q.Get("kind"), Name: q.Get("name")}
	since, err := journalSince(q.Get("since"))
	if err != nil {
		writeError(w, err)
		return
	}
	if isWatch(r) {
		if q.Get("since") == "" {
			since = s.journal.Last()
		}
		s.watchJournal(w, r, f, since)
		return
	}
	describeRequest(r, "list", "journal")
	passes, last := s.journal.Since(since, f)
	if passes == nil {
		passes = []journal.Pass{}
	}
	b, err := json.Marshal(journalList{Kind: "ReconcileJournal", APIVersion: "miniapi/v1", LastSeq: last, Items: passes})
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", mediaJSON)
	_, _ = w.Write(finishJSON(output{pretty: negotiation.Pretty(r)}, b))
}

func journalSince(v string) (uint64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest("since must be a pass's sequence number, got " + strconv.Quote(v))
	}
	return n, nil
}

// watchJournal streams the passes f selects after `after`, one JSON event
// per line, until the client leaves or takes no data for the watch write
// timeout, the watch's timeout passes or the server ends its watches
// (EndWatches).
func (s *Server) watchJournal(w http.ResponseWriter, r *http.Request, f journal.Filter, after uint64) {
	describeRequest(r, "watch", "journal")
	if !s.beginWatch() {
		writeError(w, apierrors.NewServiceUnavailable("the server is shutting down"))
		return
	}
	defer s.endWatch()
	var timeout time.Duration
	if sec, err := strconv.Atoi(r.URL.Query().Get("timeoutSeconds")); err == nil && sec > 0 {
		timeout = time.Duration(sec) * time.Second
	}
	ctx, cancel := s.watchContext(r, timeout)
	defer cancel()

	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for {
		passes, last := s.journal.Since(after, f)
		for _, p := range passes {
			if err := enc.Encode(journalEvent{Type: "ADDED", Object: p}); err != nil {
				return
			}
		}
		if buf.Len() > 0 {
			// A client that takes nothing for --watch-write-timeout is
			// dropped, as on every other watch.
			timedOut, err := writeWithin(rc.SetWriteDeadline, s.limits.WatchWriteTimeout, func() error {
				if _, err := w.Write(buf.Bytes()); err != nil {
					return err
				}
				return rc.Flush()
			})
			if timedOut {
				s.log.Info("journal watch ended", "reason", endWriteTimeout)
			}
			if err != nil {
				return
			}
			buf.Reset()
		}
		after = last
		if s.journal.Wait(ctx, after) != nil {
			return
		}
	}
}
