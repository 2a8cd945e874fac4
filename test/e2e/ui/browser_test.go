package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browsers are the names a headless-capable Chromium goes by: Debian's
// package, Ubuntu's older one, Google's build, and chromedp's own image.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// findBrowser is the path of a Chromium, or MINIAPI_CHROMIUM when set.
// Without one the test is skipped, loudly, since a silent skip would read
// as a pass; under CI=1 (.ci/run installs chromium) it fails instead.
func findBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MINIAPI_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range browsers {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("no Chromium to test the live page in: none of %v is on PATH and MINIAPI_CHROMIUM is unset; install one with `apt-get install chromium`", browsers)
	if os.Getenv("CI") == "1" {
		t.Fatal(msg)
	}
	fmt.Fprintln(os.Stderr, "*** SKIPPING the live page browser tests: "+msg)
	t.Skip("SKIPPING: " + msg)
	return ""
}

// newBrowser starts a headless Chromium for the test and returns its tab's
// context; the browser ends with the test. Errors the page's script
// throws and what it logs go into the test log.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findBrowser(t)),
		chromedp.WindowSize(1280, 860),
		// The tests run as root in containers, where Chromium's sandbox
		// cannot start; the page under test is our own.
		chromedp.NoSandbox,
		// The TLS test's certificate is self-signed.
		chromedp.IgnoreCertErrors,
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// What the page logs and throws is kept and shown if the test fails;
	// the listener runs on chromedp's goroutine, which may outlive the
	// test, so it never calls t itself.
	var mu sync.Mutex
	var pageLog []string
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		var line string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			line = "exception: " + ev.ExceptionDetails.Text
			if e := ev.ExceptionDetails.Exception; e != nil {
				line += " " + e.Description
			}
		case *runtime.EventConsoleAPICalled:
			line = "console." + string(ev.Type) + ":"
			for _, a := range ev.Args {
				line += " " + string(a.Value) + a.Description
			}
		default:
			return
		}
		mu.Lock()
		pageLog = append(pageLog, line)
		mu.Unlock()
	}))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if t.Failed() && len(pageLog) > 0 {
			t.Logf("the page's console:\n%s", strings.Join(pageLog, "\n"))
		}
	})
	// The first Run starts the browser; it must not carry a step's
	// deadline, which would end the browser with the step.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", findBrowser(t), err)
	}
	return ctx
}

// stepTimeout bounds one wait for the page: the controllers and the
// watches settle in well under a second, a loaded machine takes longer.
const stepTimeout = 60 * time.Second

// do runs steps against the page within stepTimeout.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		t.Fatalf("%s: %v\npage: %s", what, err, pageText(ctx))
	}
}

// waitFor polls the JavaScript expression until it is true.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(sctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(stepTimeout))); err != nil {
		t.Fatalf("waiting until %s: %v\npage: %s", what, err, pageText(ctx))
	}
}

// pageText is what the page shows, for failure messages.
func pageText(ctx context.Context) string {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(sctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return s
}
