// Package ui tests the live page (/ui/) in a real headless Chromium
// against the real bin/miniapi: it follows a scale without a reload, shows
// an object's history when clicked, and asks for the token on a server
// that wants one.
package ui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

const web = `article.deployment[data-name="web"]`

func TestPageFollowsScaleAndShowsHistory(t *testing.T) {
	ctx := newBrowser(t)
	s := harness.Start(t, "--pod-ready-delay=0")
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=2")

	do(t, ctx, "opening the page", chromedp.Navigate(s.URL+"/ui/?namespace=default"),
		chromedp.WaitVisible(chromedp.CSS(web+`[data-ready="2"]`)))
	// A mark that a reload would wipe out.
	do(t, ctx, "marking the page", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`window.notReloaded = true`)(ctx, tg)
		return err
	}))

	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=4")
	waitFor(t, ctx, "the page shows 4 ready replicas and 4 ready pods, without a reload",
		`window.notReloaded === true &&
		 document.querySelector('`+web+`[data-replicas="4"][data-ready="4"]') !== null &&
		 document.querySelectorAll('`+web+` li.pod[data-ready="true"]').length === 4`)

	// A Pod's history: its first revision is its creation.
	do(t, ctx, "clicking a pod", chromedp.Click(chromedp.CSS(web+` button.obj[data-kind="Pod"]`)))
	waitFor(t, ctx, "the pod's history shows its creation",
		`document.getElementById('history-title').textContent.startsWith('of pod/web-') &&
		 [...document.querySelectorAll('#history-rows tr.history-row')].some(r => r.textContent.includes('created'))`)

	// The Deployment's history has kubectl's scale among its revisions.
	do(t, ctx, "clicking the deployment", chromedp.Click(chromedp.CSS(web+` button.obj[data-kind="Deployment"]`)))
	waitFor(t, ctx, "the deployment's history shows the scale",
		`document.getElementById('history-title').textContent === 'of deployment/web' &&
		 [...document.querySelectorAll('#history-rows tr.history-row')].some(r => r.textContent.includes('spec.replicas: 2 → 4'))`)

	if path := os.Getenv("MINIAPI_UI_SCREENSHOT"); path != "" {
		screenshot(t, ctx, path)
	}
}

// On a server with --token-auth-file the page loads over loopback without
// a token, asks for one, and then shows the namespace with it.
func TestPageAsksForToken(t *testing.T) {
	ctx := newBrowser(t)
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("t0ken,admin,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.StartTLS(t, "--pod-ready-delay=0", "--token-auth-file", tokens)
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=1")

	do(t, ctx, "opening the page", chromedp.Navigate(s.URL+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS(`#token-form`)))
	do(t, ctx, "giving a wrong token", chromedp.SendKeys(chromedp.CSS(`#token`), "wrong"),
		chromedp.Click(chromedp.CSS(`#token-form button`)))
	waitFor(t, ctx, "the page refuses the wrong token",
		`!document.getElementById('token-form').hidden && document.getElementById('token-error').textContent !== ''`)
	do(t, ctx, "giving the token", chromedp.SendKeys(chromedp.CSS(`#token`), "t0ken"),
		chromedp.Click(chromedp.CSS(`#token-form button`)),
		chromedp.WaitVisible(chromedp.CSS(web+`[data-ready="1"]`)))
}

func screenshot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// The page outlives its server: when the watches end with a restart, it
// resumes them (or lists again if the server no longer has the page's
// resourceVersion) and shows what changed meanwhile, without a reload.
func TestPageCatchesUpAfterRestart(t *testing.T) {
	ctx := newBrowser(t)
	// A short watch history, so that a resume may also meet 410 Gone and
	// list again; either way the page must end up right.
	s := harness.Start(t, "--pod-ready-delay=0", "--watch-history=20")
	s.MustRun(t, "kubectl", "create", "deployment", "web", "--image=nginx", "--replicas=1")
	do(t, ctx, "opening the page", chromedp.Navigate(s.URL+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS(web+`[data-ready="1"]`)))
	do(t, ctx, "marking the page", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`window.notReloaded = true`)(ctx, tg)
		return err
	}))

	s.Restart()
	s.MustRun(t, "kubectl", "scale", "deploy", "web", "--replicas=3")
	waitFor(t, ctx, "the page shows 3 ready pods after the restart, without a reload",
		`window.notReloaded === true &&
		 document.querySelector('`+web+`[data-replicas="3"][data-ready="3"]') !== null &&
		 document.querySelectorAll('`+web+` li.pod[data-ready="true"]').length === 3 &&
		 document.getElementById('status').textContent === 'live'`)
}
