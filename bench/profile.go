package main

import (
	"fmt"
	"time"
)

// sizes are the knobs of one profile. The full profile uses the sizes
// issue 6 names; quick shrinks them to stay under three minutes on two
// cores; smoke is just big enough to run every code path.
type sizes struct {
	Name string

	StartRuns     int // cold starts on an empty data dir (the median is reported)
	StartObjects  int // objects on disk for the loaded cold start
	MemPods       int // pods held for the "RSS with pods" figure
	MemObjects    int // objects held for the "RSS with objects" figure
	CreateClients []int
	CreatesPer    func(clients int) int // creates measured at that concurrency
	Gets          int                   // gets timed for p50/p99
	ListSizes     []int                 // unpaged lists timed (pods in the namespace)
	ListRepeats   int
	Watchers      []int
	WatchRate     int           // writes per second while watching
	WatchFor      time.Duration // how long each watcher count is written to
	Reconcile     [][2]int      // Deployments × replicas
	GrowthSteps   []int         // store sizes for per-write and list cost
	GrowthWrites  int           // writes timed at each step
	ChurnObjects  int
	ChurnUpdates  int
	FillClients   int // concurrency used to load objects (not a measured figure)
	ProfileFor    time.Duration
}

func profileSizes(name string) (sizes, error) {
	switch name {
	case "quick":
		return sizes{
			Name: name, StartRuns: 3, StartObjects: 10_000, MemPods: 10_000, MemObjects: 10_000,
			CreateClients: []int{1, 16, 64}, CreatesPer: perClients(200, 2000),
			Gets: 1000, ListSizes: []int{1000, 10_000}, ListRepeats: 3,
			Watchers: []int{10, 100, 1000}, WatchRate: 500, WatchFor: time.Second,
			Reconcile: [][2]int{{100, 10}}, GrowthSteps: []int{1000, 10_000}, GrowthWrites: 1000,
			ChurnObjects: 1000, ChurnUpdates: 5000, FillClients: 32, ProfileFor: 5 * time.Second,
		}, nil
	case "full":
		return sizes{
			Name: name, StartRuns: 5, StartObjects: 100_000, MemPods: 10_000, MemObjects: 100_000,
			CreateClients: []int{1, 16, 64}, CreatesPer: perClients(1000, 10_000),
			Gets: 5000, ListSizes: []int{1000, 10_000}, ListRepeats: 10,
			Watchers: []int{10, 100, 1000}, WatchRate: 500, WatchFor: 5 * time.Second,
			Reconcile: [][2]int{{100, 10}, {1000, 10}}, GrowthSteps: []int{1000, 10_000, 100_000}, GrowthWrites: 5000,
			ChurnObjects: 1000, ChurnUpdates: 100_000, FillClients: 32, ProfileFor: 10 * time.Second,
		}, nil
	case "smoke":
		return sizes{
			Name: name, StartRuns: 1, StartObjects: 30, MemPods: 20, MemObjects: 40,
			CreateClients: []int{1, 4}, CreatesPer: perClients(10, 40),
			Gets: 20, ListSizes: []int{10, 30}, ListRepeats: 2,
			Watchers: []int{2, 5}, WatchRate: 100, WatchFor: 300 * time.Millisecond,
			Reconcile: [][2]int{{3, 2}}, GrowthSteps: []int{10, 40}, GrowthWrites: 20,
			ChurnObjects: 10, ChurnUpdates: 50, FillClients: 4, ProfileFor: time.Second,
		}, nil
	}
	return sizes{}, fmt.Errorf("unknown --profile %q: want quick, full or smoke", name)
}

// perClients gives a lone client fewer writes (each waits for its own
// fsync) and concurrent clients more.
func perClients(single, concurrent int) func(int) int {
	return func(clients int) int {
		if clients == 1 {
			return single
		}
		return concurrent
	}
}
