package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/miniapi/miniapi/pkg/storage"
)

// watchParams are a watch request's options.
type watchParams struct {
	sel         selector
	rv          string
	sendInitial bool
	bookmarks   bool
	timeout     time.Duration
}

func readWatchParams(r *http.Request, q request) (watchParams, error) {
	sel, err := parseSelector(r, q.res)
	if err != nil {
		return watchParams{}, err
	}
	query := r.URL.Query()
	p := watchParams{
		sel:         sel,
		rv:          query.Get("resourceVersion"),
		sendInitial: query.Get("sendInitialEvents") == "true",
		bookmarks:   query.Get("allowWatchBookmarks") == "true",
	}
	if p.sendInitial && query.Get("resourceVersionMatch") != "NotOlderThan" {
		return p, apierrors.NewBadRequest("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan")
	}
	if t := query.Get("timeoutSeconds"); t != "" {
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n < 0 {
			return p, apierrors.NewBadRequest(fmt.Sprintf("invalid timeoutSeconds %q", t))
		}
		p.timeout = time.Duration(n) * time.Second
	}
	return p, nil
}

// watch answers GET of a collection with watch=true: the stream of changes
// after resourceVersion (or the current state as ADDED events first, for
// "", "0" and sendInitialEvents), until the client leaves, timeoutSeconds
// (or, without it, the server's watchTimeout) passes, the store ends the
// watch, or the server shuts down.
func (s *Server) watch(w http.ResponseWriter, r *http.Request, q request) {
	out, err := negotiate(r, q.res)
	if err != nil {
		writeError(w, err)
		return
	}
	p, err := readWatchParams(r, q)
	if err != nil {
		writeError(w, err)
		return
	}
	if !s.beginWatch() {
		writeError(w, apierrors.NewServiceUnavailable("the server is shutting down"))
		return
	}
	defer s.endWatch()

	ctx, cancel := s.watchContext(r, p.timeout)
	defer cancel()

	q = p.sel.narrow(q)
	prefix := collectionPrefix(q.res, q.namespace)
	var initial *initialState
	var from int64
	if p.sendInitial || p.rv == "" || p.rv == "0" {
		if initial, err = s.readInitial(ctx, prefix); err != nil {
			writeError(w, err)
			return
		}
		from = initial.rev
	} else if from, err = parseResourceVersion(p.rv); err != nil {
		writeError(w, err)
		return
	}

	ww := s.newWatchWriter(w, r, out, q, p)
	defer ww.end()
	wt, err := s.store.Watch(ctx, prefix, from)
	if errors.Is(err, storage.ErrExpired) {
		ww.start(ctx, cancel)
		ww.sendError(errTooOld(from, oldestRevision(err, s.store.Revision())))
		return
	}
	if err != nil {
		writeError(w, err)
		return
	}
	defer wt.Stop()

	ww.start(ctx, cancel)
	s.watchEnded(ww, s.serveWatch(ctx, ww, wt, initial, from))
}

// serveWatch sends the initial state (when there is one) and then the
// store's events, until the watch ends; the error says why it ended (nil:
// its context did).
func (s *Server) serveWatch(ctx context.Context, ww *watchWriter, wt storage.Watcher, initial *initialState, from int64) error {
	if initial != nil {
		if err := initial.send(ctx, ww); err != nil {
			return err
		}
	}
	if ww.p.sendInitial {
		if err := ww.bookmark(from, true); err != nil {
			return err
		}
	}
	if err := ww.flush(); err != nil {
		return err
	}
	return s.stream(ctx, ww, wt)
}

// stream copies store events to the client until the watch ends. Events
// queued together are written together and flushed once.
func (s *Server) stream(ctx context.Context, ww *watchWriter, wt storage.Watcher) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-wt.Events():
			if !ok {
				if err := wt.Err(); err != nil && !errors.Is(err, storage.ErrClosed) {
					return &watchStoreError{err: err}
				}
				return nil
			}
			if err := ww.event(ev); err != nil {
				return err
			}
			if len(wt.Events()) == 0 {
				if err := ww.flush(); err != nil {
					return err
				}
			}
		}
	}
}

// watchContext is a watch stream's context: it ends with the request,
// when the server ends its watches, or after timeout (the server's own
// watch timeout when 0).
func (s *Server) watchContext(r *http.Request, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stopAfter := context.AfterFunc(s.ctx, cancel)
	if timeout == 0 {
		timeout = s.watchTimeout()
	}
	end := cancel
	if timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, timeout)
		end = func() { stop(); cancel() }
	}
	return ctx, func() { end(); stopAfter() }
}

// beginWatch registers an open watch unless the server is shutting down.
func (s *Server) beginWatch() bool {
	if !s.beginLongRunning() {
		return false
	}
	s.metrics.watches.Inc()
	return true
}

func (s *Server) endWatch() {
	s.metrics.watches.Dec()
	s.watches.Done()
}

// beginLongRunning registers work that EndWatches ends and waits for (a
// watch, the CRD follower) unless the server is shutting down; the work
// calls s.watches.Done when it ends.
func (s *Server) beginLongRunning() bool {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	s.watches.Add(1)
	return true
}
