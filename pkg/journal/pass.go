package journal

import (
	"fmt"
	"strings"
	"time"
)

// Ref names an object. An Owner Ref's Namespace is its child's (owners
// live in their dependents' namespace, or are cluster-scoped).
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Write is one write a controller made during a pass.
type Write struct {
	// Verb is create, update, patch or delete.
	Verb string `json:"verb"`
	// Resource, Namespace and Name say what was written (Name is empty
	// for a create whose name the server generated).
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// ResourceVersion is the written object's resourceVersion as the
	// server answered it.
	ResourceVersion string `json:"resourceVersion"`
}

// Record is what a controller adds for one pass. The Journal keeps it as
// given: the caller must not change it, Fields and Writes included, after
// Add.
type Record struct {
	Controller string
	Object     Ref
	// Owner is the object's controller owner (a ReplicaSet's Deployment);
	// a zero Kind means none.
	Owner      Ref
	Generation int64
	// Fields are the pass's log attributes as key/value pairs (slog's
	// convention), the object's own key left out: "desired", "observed"
	// and "action" fill the Pass fields of those names, "err" (when not
	// nil) is added to the action, any other pair is observed.
	Fields []any
	Writes []Write
	// Err is what the pass returned (the key is retried with backoff);
	// nil when it succeeded.
	Err error
}

// Pass is one recorded pass as readers see it.
type Pass struct {
	Seq        uint64    `json:"seq"`
	Time       time.Time `json:"time"`
	Controller string    `json:"controller"`
	Object     Ref       `json:"object"`
	Owner      *Ref      `json:"owner,omitempty"`
	Generation int64     `json:"generation,omitempty"`
	Desired    string    `json:"desired,omitempty"`
	Observed   string    `json:"observed,omitempty"`
	// Action is the step the controller chose, as it logged it ("none
	// (in sync)" and the like when there was nothing to do).
	Action string  `json:"action"`
	Writes []Write `json:"writes,omitempty"`
	// Error is what the pass returned: the controller tries the object
	// again with backoff. Empty when the pass succeeded.
	Error string `json:"error,omitempty"`
}

// entry is a Record as the ring keeps it.
type entry struct {
	seq  uint64
	time time.Time
	rec  Record
}

// pass formats e for readers: this is where the Fields become text.
func (e *entry) pass() Pass {
	p := Pass{Seq: e.seq, Time: e.time, Controller: e.rec.Controller, Object: e.rec.Object,
		Generation: e.rec.Generation, Writes: e.rec.Writes}
	if e.rec.Owner.Kind != "" {
		o := e.rec.Owner
		p.Owner = &o
	}
	var observed, failed []string
	f := e.rec.Fields
	for i := 0; i+1 < len(f); i += 2 {
		key, _ := f[i].(string)
		switch val := f[i+1]; key {
		case "desired":
			p.Desired = fmt.Sprint(val)
		case "observed":
			observed = append([]string{fmt.Sprint(val)}, observed...)
		case "action":
			p.Action = fmt.Sprint(val)
		case "err":
			if val != nil {
				failed = append(failed, fmt.Sprint(val))
			}
		default:
			observed = append(observed, fmt.Sprintf("%s=%v", key, val))
		}
	}
	p.Observed = strings.Join(observed, " ")
	if e.rec.Err != nil {
		p.Error = e.rec.Err.Error()
	}
	if len(failed) > 0 {
		p.Action += " (failed: " + strings.Join(failed, "; ") + ")"
	}
	return p
}
