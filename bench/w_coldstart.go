package main

import (
	"context"
	"time"
)

// coldStart times exec → /readyz ok on empty data dirs and reports the
// median. The loaded start (objects on disk) is measured by the memory
// workload, which has the objects at hand.
func coldStart(ctx context.Context, e *env) error {
	if e.opts.Kubeconfig != "" {
		e.skip("cold start: needs miniapi's own process")
		return nil
	}
	var took []time.Duration
	for range e.sizes.StartRuns {
		c, err := e.newCluster(ctx)
		if err != nil {
			return err
		}
		took = append(took, c.started)
		c.close(ctx)
	}
	e.res.add("cold start", "start.empty_ms", "exec → /readyz ok, empty data dir (median)", ms(median(took)), "ms").
		atMost(100, "≤ 100 ms")
	return nil
}
