package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// The memory goals: RSS idle, and with 10,000 pods.
const (
	idleGoalMiB = 40
	podsGoalMiB = 100
)

// memory reads the server's RSS idle, with MemPods pods and with
// MemObjects objects, compares the database's bytes per object with the
// objects' JSON size, then restarts the loaded server (SIGTERM, start) to
// time the loaded cold start. The controllers run throughout: the figures
// are server and controllers together, as the target says.
func memory(ctx context.Context, e *env) error {
	if e.opts.Kubeconfig != "" {
		e.skip("memory, database size and loaded cold start: need miniapi's own process")
		return nil
	}
	c, err := e.newCluster(ctx)
	if err != nil {
		return err
	}
	defer c.close(ctx)
	time.Sleep(500 * time.Millisecond) // let the controllers' informers settle
	idle, err := c.srv.RSSMiB()
	if err != nil {
		return err
	}
	f := e.add("memory", "memory.idle_rss_mib", "RSS idle (server + controllers)", idle, "MiB").atMost(idleGoalMiB, "≤ 40 MiB")
	e.vsDefault(f, "memory.idle_rss_mib")
	anon, err := c.srv.AnonMiB()
	if err != nil {
		return err
	}
	e.vsDefault(e.add("memory", "memory.idle_anon_mib", "  of which anonymous (heap, stacks; not the mapped binary)", anon, "MiB"), "memory.idle_anon_mib")
	explainIdleMiss(e, idle, anon, idleGoalMiB)

	ns, err := c.namespace(ctx, e.nsName("mem"))
	if err != nil {
		return err
	}
	if _, err := createPods(ctx, c.cs, ns, 0, e.sizes.MemPods, e.sizes.FillClients, nil); err != nil {
		return err
	}
	rss, err := settledRSS(c)
	if err != nil {
		return err
	}
	pods := groupThousands(int64(e.sizes.MemPods))
	f = e.add("memory", "memory.pods_rss_mib", fmt.Sprintf("RSS with %s pods", pods), rss, "MiB").vs("idle", idle)
	goalSize := e.sizes.MemPods == 10_000 // the goal's size; the smoke profile holds 20
	if goalSize {
		f.atMost(podsGoalMiB, "≤ 100 MiB")
	}
	e.vsDefault(f, "memory.pods_rss_mib")
	anon, err = c.srv.AnonMiB()
	if err != nil {
		return err
	}
	e.vsDefault(e.add("memory", "memory.pods_anon_mib", "  of which anonymous", anon, "MiB"), "memory.pods_anon_mib")
	if goalSize {
		explainLoadedMiss(ctx, e, c.srv, "with "+pods+" pods", rss, anon, podsGoalMiB)
	}
	if extra := e.sizes.MemObjects - e.sizes.MemPods; extra > 0 {
		ns2, err := c.namespace(ctx, e.nsName("mem2"))
		if err != nil {
			return err
		}
		if _, err := createPods(ctx, c.cs, ns2, 0, extra, e.sizes.FillClients, nil); err != nil {
			return err
		}
		if rss, err = settledRSS(c); err != nil {
			return err
		}
	}
	objects := max(e.sizes.MemObjects, e.sizes.MemPods)
	e.vsDefault(e.add("memory", "memory.objects_rss_mib", fmt.Sprintf("RSS with %s objects", groupThousands(int64(objects))), rss, "MiB").vs("idle", idle), "memory.objects_rss_mib")
	if e.opts.PprofDir != "" {
		if err := heapProfile(ctx, c.srv, filepath.Join(e.opts.PprofDir, "memory"+e.variant.keySuffix()+".heap.pprof")); err != nil {
			e.log.Warn("heap profile", "err", err)
		}
	}
	if err := dbPerObject(ctx, e, c, ns, objects); err != nil {
		return err
	}
	return loadedStart(ctx, e, c, objects)
}

// settledRSS reads the RSS once the controllers have caught up with the
// writes (a short pause), so the figure is what the process holds, not a
// transient peak.
func settledRSS(c *cluster) (float64, error) {
	time.Sleep(time.Second)
	return c.srv.RSSMiB()
}

// dbPerObject compares the database file's bytes per object with the JSON
// size of the objects as the server returns them.
func dbPerObject(ctx context.Context, e *env, c *cluster, ns string, objects int) error {
	raw, err := c.cs.CoreV1().RESTClient().Get().Namespace(ns).Resource("pods").
		SetHeader("Accept", "application/json").DoRaw(ctx)
	if err != nil {
		return err
	}
	db, err := c.srv.DBBytes()
	if err != nil {
		return err
	}
	jsonPer := float64(len(raw)) / float64(e.sizes.MemPods)
	e.vsDefault(e.add("memory", "memory.db_bytes_per_object", "database bytes per object (incl. watch history)", float64(db)/float64(objects), "B").
		vs("JSON size", jsonPer), "memory.db_bytes_per_object")
	// The file also holds free pages and grows in 4 MiB steps; the store
	// says how much of it is in use (a server without the endpoint, say
	// an older --baseline-miniapi, has no such figure).
	if inUse, err := dbInUseBytes(ctx, c); err == nil {
		e.add("memory", "memory.db_inuse_bytes_per_object", "  of which pages in use", float64(inUse)/float64(objects), "B").
			vs("JSON size", jsonPer)
	}
	return nil
}

// dbInUseBytes asks the server how many bytes of its database file are
// in use (GET /miniapi/v1/maintenance/status).
func dbInUseBytes(ctx context.Context, c *cluster) (int64, error) {
	body, err := c.srv.Get(ctx, "/miniapi/v1/maintenance/status")
	if err != nil {
		return 0, err
	}
	var st struct {
		InUseBytes int64 `json:"inUseBytes"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return 0, err
	}
	if st.InUseBytes <= 0 {
		return 0, fmt.Errorf("maintenance status: no bytes in use in %s", body)
	}
	return st.InUseBytes, nil
}

// loadedStart stops the loaded server with SIGTERM and times its start.
func loadedStart(ctx context.Context, e *env, c *cluster, objects int) error {
	if err := c.srv.Stop(); err != nil {
		return err
	}
	took, err := c.srv.Start(ctx)
	if err != nil {
		return err
	}
	e.add("cold start", "start.loaded_ms", fmt.Sprintf("exec → /readyz ok with %s objects", groupThousands(int64(objects))), ms(took), "ms").
		atMost(1000, "≤ 1 s (target at 100k)")
	return nil
}
