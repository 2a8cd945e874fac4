// Package controllers runs miniapi's in-process controllers. They are
// ordinary API clients: they talk to the server through client-go only.
package controllers

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
)

// Options configure the controllers.
type Options struct {
	// Nodes is how many simulated Node objects exist.
	Nodes int
	// PodReadyDelay is how long a simulated pod takes from Pending to
	// Running/Ready, and from terminating to gone.
	PodReadyDelay time.Duration
}

// Run starts every controller against the API server cfg points at and
// blocks until ctx is done and every controller has stopped.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	<-ctx.Done()
	return nil
}
