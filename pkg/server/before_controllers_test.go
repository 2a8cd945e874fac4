package server

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestBeforeControllers: the hook runs against a serving API before any
// controller (no Node registered yet), and its error fails Start, which
// leaves the data directory free for the next start.
func TestBeforeControllers(t *testing.T) {
	cfg := testConfig(t)
	cfg.Nodes = 1
	nodesSeen := -1
	cfg.BeforeControllers = func(ctx context.Context, rc *rest.Config) error {
		c, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return err
		}
		nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		nodesSeen = len(nodes.Items)
		return errors.New("hook failed")
	}
	if _, err := Start(context.Background(), cfg); err == nil || err.Error() != "hook failed" {
		t.Fatalf("Start with a failing hook: %v; want the hook's error", err)
	}
	if nodesSeen != 0 {
		t.Errorf("the hook saw %d nodes; want 0 (it runs before the controllers, which register them)", nodesSeen)
	}
	cfg.BeforeControllers = nil
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("start on the same data dir after a failed hook: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Error(err)
	}
}
