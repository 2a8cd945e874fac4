package apiserver

import (
	"context"
	"time"

	"github.com/miniapi/miniapi/pkg/apiserver/crd"
	"github.com/miniapi/miniapi/pkg/storage"
)

// crdRetry is how soon the CRDs are looked at again without a change,
// while a deleted CRD waits for custom resources that finalizers keep or
// a sync failed.
const crdRetry = time.Second

// serveCRDs serves the custom resources of the stored CRDs before
// Bootstrap returns, then keeps doing so: it runs crd.Controller's Sync
// after every change to a CRD until the server shuts down (EndWatches
// stops it, as it stops the watches).
func (s *Server) serveCRDs(ctx context.Context) {
	res, ok := s.reg.Lookup(crd.GroupVersionResource)
	if !ok {
		return // a registry without CRDs (tests)
	}
	s.crds = crd.NewController(objects{s}, s.reg, s.log)
	from := s.store.Revision()
	again := s.syncCRDs(ctx)
	if !s.beginLongRunning() {
		return
	}
	go func() {
		defer s.watches.Done()
		for s.ctx.Err() == nil {
			w, err := s.store.Watch(s.ctx, res.KeyPrefix(), from)
			if err != nil {
				// Expired or closed: start over from now, with a sync.
				s.log.Warn("watching CRDs", "err", err)
				select {
				case <-s.ctx.Done():
				case <-time.After(crdRetry):
				}
				from = s.store.Revision()
				again = true
				continue
			}
			again = s.followCRDs(w, again)
			w.Stop()
			from = s.store.Revision()
		}
	}()
}

// syncCRDsAfterWrite syncs right after a client's write to a CRD, so that
// its resources are served, or gone, when the client hears back (kubectl
// create, then get at once). The watch above still syncs too: a write
// made by Sync itself skips this.
func (s *Server) syncCRDsAfterWrite(ctx context.Context) {
	if s.crds != nil {
		s.crds.AfterWrite(withManager(ctx, "kube-apiserver", ""))
	}
}

// syncCRDs runs one Sync and reports whether another is due soon.
func (s *Server) syncCRDs(ctx context.Context) (again bool) {
	pending, err := s.crds.Sync(withManager(ctx, "kube-apiserver", ""))
	if err != nil && ctx.Err() == nil {
		s.log.Warn("serving custom resources", "err", err)
	}
	return pending || err != nil
}

// followCRDs syncs after each batch of CRD events, and again after
// crdRetry while a sync asks for it, until the watch or the server ends.
func (s *Server) followCRDs(w storage.Watcher, again bool) bool {
	retry := time.NewTimer(crdRetry)
	defer retry.Stop()
	if !again {
		retry.Stop()
	}
	events := w.Events()
	for {
		select {
		case <-s.ctx.Done():
			return again
		case _, ok := <-events:
			if !ok {
				return true
			}
			for len(events) > 0 {
				<-events
			}
		case <-retry.C:
		}
		retry.Stop()
		if again = s.syncCRDs(s.ctx); again {
			retry.Reset(crdRetry)
		}
	}
}
