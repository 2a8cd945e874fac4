package ui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/miniapi/miniapi/pkg/ui"
)

// The Journal panel shows the rows the journal endpoint streams. The
// journal is served by another part of miniapi; here a stand-in serves it
// (and empty lists and watches for the page's other calls), so the panel
// is tested on its own.
func TestJournalPanelShowsRows(t *testing.T) {
	ctx := newBrowser(t)
	mux := http.NewServeMux()
	mux.Handle(ui.Prefix, ui.Handler(ui.Options{}))
	mux.HandleFunc("/miniapi/v1/journal", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("namespace") != "default" || r.URL.Query().Get("watch") != "true" {
			http.Error(w, "unexpected query "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		for i, action := range []string{"create ReplicaSet web-1", "scale web-1 to 3"} {
			fmt.Fprintf(w, `{"type":"ADDED","object":{"time":"2026-12-02T13:42:0%dZ","controller":"deployment","object":{"kind":"Deployment","name":"web"},"action":%q}}`+"\n", i, action)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // a watch stays open
	})
	// Every API path the page lists or watches: nothing there.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"metadata":{"resourceVersion":"1"},"items":[]}`)
	})
	ts := httptest.NewServer(mux)
	// The page's watches stay open until the browser leaves; close them
	// before the server waits for its handlers.
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })

	do(t, ctx, "opening the page", chromedp.Navigate(ts.URL+"/ui/"))
	// The time cell is left out: it is shown in the browser's time zone.
	waitFor(t, ctx, "the journal panel shows both passes, newest first",
		`[...document.querySelectorAll('#journal-rows tr.journal-row')].map(r => [...r.cells].slice(1).map(c => c.textContent).join(',')).join('|') ===
		 '`+strings.Join([]string{"deployment,Deployment/web,scale web-1 to 3", "deployment,Deployment/web,create ReplicaSet web-1"}, "|")+`'`)
	waitFor(t, ctx, "the journal panel says it is live", `document.getElementById('journal-status').textContent === 'live'`)
}
