package apiserver

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// BenchmarkList compares the ways a list of 1000 pods leaves the server:
// plain JSON is spliced from the stored bytes (with a label selector that
// picks all of them or a tenth, after reading each pod's labels from its
// JSON or from the cache of labels), the others decode every object first.
// Each runs on three servers: "before" writes no managedFields and keeps
// no caches (the server as it was before field management), "uncached"
// writes managedFields and decodes every object on every list, "cached"
// writes them and keeps decoded objects and labels (revcache), so every
// list but the first finds them decoded. The cost of managedFields on
// reads is the ratio of the last two to the first in one run; B/object is
// the size of one pod in the list.
func BenchmarkList(b *testing.B) {
	for _, v := range []struct {
		name            string
		managed, cached bool
	}{{"before", false, false}, {"uncached", true, false}, {"cached", true, true}} {
		name := v.name
		ts := startTestServer(b)
		if !v.managed {
			ts.api.fields = nil
		}
		if !v.cached {
			ts.api.decodedObjects, ts.api.labels = nil, nil
		}
		createMany(b, ts, "/api/v1/namespaces/default/pods?fieldManager=kube-controller-manager", 1000, func(i int) string {
			return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%04d","labels":{"app":"web","shard":"%d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, i, i%10)
		})
		for _, c := range []struct {
			name, accept, query string
			objects             int
		}{
			{"json-spliced", "application/json", "", 1000},
			{"json-label-selector-all", "application/json", "?labelSelector=app%3Dweb", 1000},
			{"json-label-selector-tenth", "application/json", "?labelSelector=shard%3D3", 100},
			{"protobuf-decoded", "application/vnd.kubernetes.protobuf", "", 1000},
			{"table", tableAccept, "", 1000},
		} {
			b.Run(c.name+"/"+name, func(b *testing.B) {
				var n int64
				for b.Loop() {
					n = listOnce(b, ts.url+"/api/v1/namespaces/default/pods"+c.query, c.accept)
				}
				b.ReportMetric(float64(n)/float64(c.objects), "B/object")
			})
		}
	}
}

// listOnce GETs a list and answers the size of its body.
func listOnce(b *testing.B, url, accept string) int64 {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || n < 1000 {
		b.Fatalf("%d, %d bytes", resp.StatusCode, n)
	}
	return n
}

// BenchmarkListEvents lists 1000 events through core/v1, where plain JSON
// is spliced from the stored bytes, and through events.k8s.io/v1, where
// every object is decoded, converted and encoded again.
func BenchmarkListEvents(b *testing.B) {
	ts := startTestServer(b)
	createMany(b, ts, coreEvents, 1000, func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Event","metadata":{"name":"e%04d"},"involvedObject":{"kind":"Pod","name":"web-0","namespace":"default"},"reason":"Hand","message":"event %d","type":"Normal","count":1,"source":{"component":"bench"}}`, i, i)
	})
	for _, c := range []struct{ name, path string }{{"core-spliced", coreEvents}, {"events.k8s.io-converted", newEvents}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				resp, err := http.Get(ts.url + c.path)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || n < 100000 {
					b.Fatalf("%d, %d bytes", resp.StatusCode, n)
				}
			}
		})
	}
}

// createMany POSTs n bodies to path, 32 at a time, so that the creates
// share commits.
func createMany(b *testing.B, ts *testServer, path string, n int, body func(i int) string) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ts.do(b, "POST", path, "application/json", body(i))
		}()
	}
	wg.Wait()
}
