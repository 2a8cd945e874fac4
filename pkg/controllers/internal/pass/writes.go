package pass

import (
	"context"
	"sync"

	"github.com/miniapi/miniapi/pkg/journal"
)

type passKey struct{}

// current is one pass in progress: the record Log made, kept until the
// pass ends so that the writes made after the log line (a status write,
// typically) are recorded with it.
type current struct {
	r *recorder

	mu      sync.Mutex // writes come from concurrent creates (slow start)
	pending *journal.Record
	writes  []journal.Write
}

// Begin starts a pass under ctx, which the driver gives to Reconcile; End
// records it. Without a journal in ctx it returns ctx and a nil *Pass,
// whose End does nothing, so a server without a journal pays nothing.
func Begin(ctx context.Context) (context.Context, *Pass) {
	r, _ := ctx.Value(recorderKey{}).(*recorder)
	if r == nil || r.controller == "" {
		return ctx, nil
	}
	c := &current{r: r}
	return context.WithValue(ctx, passKey{}, c), &Pass{c: c}
}

// Pass is a pass in progress, as Begin returns it.
type Pass struct{ c *current }

// End records the pass that Log described, with every write made during
// it and err, what Reconcile returned (the driver retries the key). A pass
// that logged nothing (its object is gone) records nothing.
func (p *Pass) End(err error) {
	if p == nil {
		return
	}
	c := p.c
	c.mu.Lock()
	rec := c.pending
	if rec != nil {
		rec.Writes, rec.Err = c.writes, err
	}
	c.pending, c.writes = nil, nil
	c.mu.Unlock()
	if rec != nil {
		c.r.j.Add(*rec)
	}
}

// hold keeps rec until the pass ends; with no pass in ctx (a Reconcile
// called outside the driver) it records rec at once. A second Log in one
// pass records the first with the writes made so far.
func hold(ctx context.Context, r *recorder, rec journal.Record) {
	c, _ := ctx.Value(passKey{}).(*current)
	if c == nil {
		r.j.Add(rec)
		return
	}
	c.mu.Lock()
	prev := c.pending
	if prev != nil {
		prev.Writes, c.writes = c.writes, nil
	}
	c.pending = &rec
	c.mu.Unlock()
	if prev != nil {
		r.j.Add(*prev)
	}
}

// noteWrite adds w to ctx's pass, if there is one.
func noteWrite(ctx context.Context, w journal.Write) {
	c, _ := ctx.Value(passKey{}).(*current)
	if c == nil {
		return
	}
	c.mu.Lock()
	c.writes = append(c.writes, w)
	c.mu.Unlock()
}
