package apiserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Limits bound how many requests one server serves at once and how long
// each may take, as kube-apiserver's flags of the same names do. A zero
// field sets no limit.
type Limits struct {
	// RequestTimeout (--request-timeout) is how long a request may take:
	// its context ends then, a handler still waiting answers 504, and a
	// body not received by then is cut off. A request's ?timeout= may
	// shorten it. Long-running requests (watches) are exempt.
	RequestTimeout time.Duration
	// MinRequestTimeout (--min-request-timeout) ends a watch that asked for
	// no timeoutSeconds after a random time in [MinRequestTimeout,
	// 2*MinRequestTimeout), so that reconnecting watchers spread out.
	MinRequestTimeout time.Duration
	// WatchWriteTimeout (--watch-write-timeout) ends a watch whose client
	// does not take one write within it: the deadline is set before each
	// write and flush and cleared after, so an idle watch is never cut,
	// only one whose socket stopped draining. 0: no deadline.
	WatchWriteTimeout time.Duration
	// MaxRequestsInflight (--max-requests-inflight) and
	// MaxMutatingRequestsInflight (--max-mutating-requests-inflight) cap
	// the reads and the writes served at once; past them a request gets
	// 429 with Retry-After. Long-running requests do not count.
	MaxRequestsInflight, MaxMutatingRequestsInflight int
}

// Request kinds, as kube-apiserver's apiserver_current_inflight_requests
// labels them.
const (
	kindReadOnly    = "readOnly"
	kindMutating    = "mutating"
	kindLongRunning = "longRunning"
)

// retryAfterSeconds is what a 429 asks the client to wait, kube's 1 s.
const retryAfterSeconds = 1

// longRunningSubresources are the subresources kube-apiserver counts as
// long-running: streams that may last as long as the client wants.
var longRunningSubresources = sets.New("log", "exec", "attach", "portforward", "proxy")

// requestKind tells reads, writes and long-running requests apart from
// the method and the path, before routing, as kube's filters do.
func requestKind(r *http.Request) string {
	if longRunningSubresources.Has(subresourceOf(r.URL.Path)) {
		return kindLongRunning
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if isWatch(r) {
			return kindLongRunning
		}
		return kindReadOnly
	case http.MethodOptions:
		return kindReadOnly
	}
	return kindMutating
}

// subresourceOf is the subresource a resource path names, "" if none:
// RESOURCE/NAME/SUB or namespaces/NS/RESOURCE/NAME/SUB after /api/v1 or
// /apis/GROUP/VERSION.
func subresourceOf(path string) string {
	segs := splitPath(path)
	var rest []string
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		rest = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		rest = segs[3:]
	}
	switch {
	case len(rest) == 5 && rest[0] == "namespaces":
		return rest[4]
	case len(rest) == 3 && rest[0] != "namespaces":
		return rest[2]
	}
	return ""
}

// inflight counts the requests being served, and holds the slots that
// cap them.
type inflight struct {
	// readOnly and mutating have one buffered place per allowed request;
	// nil: no cap.
	readOnly, mutating chan struct{}
	metrics            *Metrics
}

func newInflight(l Limits, m *Metrics) *inflight {
	f := &inflight{metrics: m}
	if l.MaxRequestsInflight > 0 {
		f.readOnly = make(chan struct{}, l.MaxRequestsInflight)
	}
	if l.MaxMutatingRequestsInflight > 0 {
		f.mutating = make(chan struct{}, l.MaxMutatingRequestsInflight)
	}
	return f
}

func (f *inflight) slots(kind string) chan struct{} {
	if kind == kindMutating {
		return f.mutating
	}
	return f.readOnly
}

// acquire takes a slot for a request of kind without waiting; false when
// all are taken. A taken slot is given back with release.
func (f *inflight) acquire(kind string) bool {
	if c := f.slots(kind); c != nil {
		select {
		case c <- struct{}{}:
		default:
			return false
		}
	}
	f.metrics.inflight.WithLabelValues(kind).Inc()
	return true
}

func (f *inflight) release(kind string) {
	f.metrics.inflight.WithLabelValues(kind).Dec()
	if c := f.slots(kind); c != nil {
		<-c
	}
}

// limit applies the server's Limits: a request past the in-flight cap of
// its kind gets 429; any other gets its deadline, which also bounds the
// reading of its body. Long-running requests and health checks pass
// untouched (watches take their own timeout, watch.go).
func (s *Server) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := requestKind(r)
		if kind == kindLongRunning || isHealthPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		timeout, err := s.requestTimeout(r)
		if err != nil {
			writeError(w, err)
			return
		}
		if !s.inflight.acquire(kind) {
			w.Header().Set("Retry-After", fmt.Sprint(retryAfterSeconds))
			writeError(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", retryAfterSeconds))
			return
		}
		defer s.inflight.release(kind)
		if timeout > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer cancel()
			r = r.WithContext(ctx)
			if r.Body != nil && r.Body != http.NoBody {
				// A client that stops sending its body is cut off at the
				// deadline; ErrNotSupported (a test recorder) is fine.
				deadline, _ := ctx.Deadline()
				_ = http.NewResponseController(w).SetReadDeadline(deadline)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// requestTimeout is how long the request may take: --request-timeout,
// or the request's ?timeout= when shorter (0: no bound).
func (s *Server) requestTimeout(r *http.Request) (time.Duration, error) {
	bound := s.limits.RequestTimeout
	v := r.URL.Query().Get("timeout")
	if v == "" {
		return bound, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid timeout specified in the request URL - %v", err))
	}
	if d > 0 && (bound == 0 || d < bound) {
		return d, nil
	}
	return bound, nil
}

// watchTimeout is how long a watch that asked for no timeoutSeconds
// lasts: a random time in [MinRequestTimeout, 2*MinRequestTimeout), as
// kube-apiserver picks it, so that watchers reconnect spread out; 0 (for
// ever) without --min-request-timeout.
func (s *Server) watchTimeout() time.Duration {
	least := s.limits.MinRequestTimeout
	if least <= 0 {
		return 0
	}
	return least + rand.N(least)
}

// errRequestTimeout is kube-apiserver's 504 for a request that outlived
// its deadline.
func errRequestTimeout() *apierrors.StatusError {
	return apierrors.NewTimeoutError(fmt.Sprintf("request did not complete within requested timeout - %v", context.DeadlineExceeded), 0)
}
