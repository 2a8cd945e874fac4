package ui

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// journalRows is a script giving the journal panel's rows as
// "controller,object,action" lines (the time cell is left out: it is shown
// in the browser's time zone).
const journalRows = `[...document.querySelectorAll('#journal-rows tr.journal-row')].map(r => [...r.cells].slice(1).map(c => c.textContent).join(','))`

// The Journal panel shows the passes the journal kept before the page was
// opened, then follows new ones: a scale's pass appears without a reload.
func TestJournalPanelFollowsPasses(t *testing.T) {
	ctx := newBrowser(t)
	s := harness.Start(t, "--pod-ready-delay=0")
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=1")

	do(t, ctx, "opening the page", chromedp.Navigate(s.URL+"/ui/?namespace=default"),
		chromedp.WaitVisible(chromedp.CSS(web+`[data-ready="1"]`)))
	waitFor(t, ctx, "the panel shows the pass that created the ReplicaSet, kept before the page opened",
		journalRows+`.some(r => r.startsWith('deployment,Deployment/web,created new replicaset web-'))`)
	waitFor(t, ctx, "the panel is live", `document.getElementById('journal-status').textContent === 'live'`)

	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=3")
	waitFor(t, ctx, "the panel shows the scale's passes as they happen",
		journalRows+`.some(r => r.startsWith('deployment,Deployment/web,scaled')) &&
		 `+journalRows+`.some(r => r.startsWith('replicaset,ReplicaSet/web-') && r.includes('created 2 pods'))`)
}

// A server started with --journal-passes=0 has no journal: the panel says so.
func TestJournalPanelWithoutJournal(t *testing.T) {
	ctx := newBrowser(t)
	s := harness.Start(t, "--pod-ready-delay=0", "--journal-passes=0")
	do(t, ctx, "opening the page", chromedp.Navigate(s.URL+"/ui/?namespace=default"))
	waitFor(t, ctx, "the panel says there is no journal",
		`document.getElementById('journal-status').textContent === 'The journal is not available on this server.'`)
}
