package apiserver

import (
	"errors"

	"github.com/miniapi/miniapi/pkg/storage"
)

// Why a watch stream ended, as its log line and watchEnd say.
const (
	endDone         = "done"          // its context: timeout, client gone, shutdown
	endWriteTimeout = "write timeout" // the client took no data within Limits.WatchWriteTimeout
	endBufferFull   = "buffer full"   // the store's buffer for it overflowed
	endExpired      = "expired"       // the initial state's revision left the history
	endClient       = "client gone"   // a write failed before its deadline
	endStore        = "store error"
)

// watchStoreError is a store error that ended a watch, apart from the
// write errors of the client's connection. initialPage: met reading a
// later page of the initial state, with the stream started, so it goes to
// the client as an ERROR event.
type watchStoreError struct {
	err         error
	initialPage bool
}

func (e *watchStoreError) Error() string { return e.err.Error() }
func (e *watchStoreError) Unwrap() error { return e.err }

// watchEnd is one ended watch, for Server.onWatchEnd (tests).
type watchEnd struct {
	resource string
	reason   string
	// peakHeld is the most bytes the watch held at once in its initial
	// state page and unwritten output (watchWriter.peakHeld).
	peakHeld int
}

// watchEnded logs why a watch ended and counts the watchers the server
// closed for not keeping up, as kube-apiserver's
// apiserver_terminated_watchers_total. kube-apiserver closes such a
// watcher's stream without an ERROR event; so does miniapi, and the
// client watches again from the last resourceVersion it saw. A store
// error on a later page of the initial state is sent as an ERROR event.
func (s *Server) watchEnded(ww *watchWriter, err error) {
	reason := classifyWatchEnd(ww, err)
	resource := ww.q.res.Resource
	switch reason {
	case endWriteTimeout, endBufferFull:
		s.metrics.terminated.WithLabelValues(resource).Inc()
		s.log.Warn("watch closed: the client does not keep up", "resource", resource, "namespace", ww.q.namespace,
			"reason", reason, "writeTimeout", ww.writeTimeout, "err", err)
	case endExpired:
		ww.sendError(errTooOld(requestedRevision(err), oldestRevision(err, s.store.Revision())))
		s.log.Info("watch ended: its initial state left the history", "resource", resource, "err", err)
	case endStore:
		var se *watchStoreError
		if errors.As(err, &se) && se.initialPage {
			ww.sendError(se.err)
		}
		s.log.Info("watch ended by the store", "resource", resource, "err", err)
	case endClient:
		s.log.Debug("watch ended: the client went away", "resource", resource, "err", err)
	}
	if s.onWatchEnd != nil {
		s.onWatchEnd(watchEnd{resource: resource, reason: reason, peakHeld: ww.peakHeld})
	}
}

func classifyWatchEnd(ww *watchWriter, err error) string {
	var se *watchStoreError
	switch {
	case err == nil:
		return endDone
	case ww.timedOut:
		return endWriteTimeout
	case !errors.As(err, &se):
		return endClient
	case errors.Is(err, storage.ErrWatcherTooSlow):
		return endBufferFull
	case se.initialPage && errors.Is(err, storage.ErrExpired):
		return endExpired
	}
	return endStore
}
