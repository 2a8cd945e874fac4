package main

import (
	"context"
	"fmt"
)

// growth fills one server step by step and, at each store size, times
// GrowthWrites creates from 16 clients (wall time per write) and an
// unpaged list of a fixed 1k-pod namespace (the 1k step's own pods), each
// against itself at the first step.
func growth(ctx context.Context, e *env) error {
	c, err := e.newCluster(ctx)
	if err != nil {
		return err
	}
	listNS := e.nsName("growth-list")
	fillNS := e.nsName("growth-fill")
	writeNS := e.nsName("growth-write")
	defer c.close(ctx, listNS, fillNS, writeNS)
	for _, ns := range []string{listNS, fillNS, writeNS} {
		if _, err := c.namespace(ctx, ns); err != nil {
			return err
		}
	}
	steps := e.sizes.GrowthSteps
	listed := min(1000, steps[0])
	if _, err := createPods(ctx, c.cs, listNS, 0, listed, e.sizes.FillClients, nil); err != nil {
		return err
	}
	objects, filled, written := listed, 0, 0
	var firstWrite, firstList float64
	var xs, writeMS, listMS []float64
	for i, step := range steps {
		if more := step - objects; more > 0 {
			if _, err := createPods(ctx, c.cs, fillNS, filled, filled+more, e.sizes.FillClients, nil); err != nil {
				return err
			}
			filled += more
			objects += more
		}
		wait := func() {}
		if i == len(steps)-1 {
			wait = e.profileDuring(ctx, c, "growth")
		}
		took, err := createPods(ctx, c.cs, writeNS, written, written+e.sizes.GrowthWrites, 16, nil)
		wait()
		if err != nil {
			return err
		}
		written += e.sizes.GrowthWrites
		perWrite := ms(took) / float64(e.sizes.GrowthWrites)
		list, _, err := timeList(ctx, c, listNS, "", e.sizes.ListRepeats)
		if err != nil {
			return err
		}
		label := groupThousands(int64(step))
		key := fmt.Sprintf("growth.%d", step)
		wf := e.res.add("growth", key+".write_ms", fmt.Sprintf("wall time per create (16 clients) at %s objects", label), perWrite, "ms")
		lf := e.res.add("growth", key+".list_ms", fmt.Sprintf("list of %s pods at %s objects", groupThousands(int64(listed)), label), list, "ms")
		if i == 0 {
			firstWrite, firstList = perWrite, list
		} else {
			base := "at " + groupThousands(int64(steps[0]))
			wf.vs(base, firstWrite)
			lf.vs(base, firstList)
			if i == len(steps)-1 {
				wf.ratioAtMost(1.5, "≤ 1.5× (target at 100k)")
			}
		}
		objects += e.sizes.GrowthWrites
		xs, writeMS, listMS = append(xs, float64(step)), append(writeMS, perWrite), append(listMS, list)
	}
	yl := "× its cost at " + groupThousands(int64(steps[0])) + " objects"
	e.res.Series = append(e.res.Series,
		series{Name: "create (wall per write, 16 clients)", XLabel: "objects", YLabel: yl, X: xs, Y: relative(writeMS)},
		series{Name: fmt.Sprintf("list of %d pods", listed), XLabel: "objects", YLabel: yl, X: xs, Y: relative(listMS)})
	return nil
}

// relative divides every value by the first.
func relative(v []float64) []float64 {
	out := make([]float64, len(v))
	for i := range v {
		out[i] = v[i] / v[0]
	}
	return out
}
