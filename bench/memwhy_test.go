package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/pprof/profile"
)

// TestLiveByHolder: each allocation's live bytes go to the first holder
// named on its stack from the allocation up, largest first, "other" last.
func TestLiveByHolder(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_space"}, {Type: "inuse_space"}}}
	sample := func(inuse int64, stack ...string) {
		s := &profile.Sample{Value: []int64{2 * inuse, inuse}}
		for _, name := range stack {
			s.Location = append(s.Location, &profile.Location{Line: []profile.Line{{Function: &profile.Function{Name: name}}}})
		}
		p.Sample = append(p.Sample, s)
	}
	sample(1000, "k8s.io/api/core/v1.(*PodSpec).Unmarshal", "k8s.io/apimachinery/pkg/runtime/serializer/protobuf.(*Serializer).Decode",
		"k8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive")
	sample(300, "encoding/json.Unmarshal", "github.com/miniapi/miniapi/pkg/apiserver/revcache.(*Cache[...]).Get",
		"github.com/miniapi/miniapi/pkg/apiserver.(*wireCache).get")
	sample(500, "github.com/miniapi/miniapi/pkg/storage/boltstore.(*Store).enqueue")
	sample(200, "runtime.malg")
	sample(0, "github.com/miniapi/miniapi/pkg/apiserver.(*wireCache).get")

	live, got, err := liveByHolder(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []heapHolder{
		{"the controllers' informer caches", 1000},
		{"the store's watch history and watcher buffers", 500},
		{"the API's cache of decoded objects", 300},
		{"other", 200},
	}
	if live != 2000 || !slices.Equal(got, want) {
		t.Errorf("got %.0f B: %v, want 2000 B: %v", live, got, want)
	}
}

// TestHeapHolders reads a running server's heap profile: the holders'
// bytes add up to the live heap, "other" last.
func TestHeapHolders(t *testing.T) {
	bin := filepath.Join(repoRoot(), "bin", "miniapi")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is missing: run `make build` first", bin)
	}
	srv, err := newServer(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	live, holders, err := heapHolders(t.Context(), srv)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, h := range holders {
		sum += h.bytes
	}
	if live <= 0 || sum != live || holders[len(holders)-1].name != "other" {
		t.Errorf("live heap %.0f B; holders %v", live, holders)
	}
}
