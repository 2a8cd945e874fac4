package boltstore

import "time"

// progressLoop ticks the hub's progress events until Close.
func (s *Store) progressLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.hub.progress()
		}
	}
}
