package apiserver

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// BenchmarkList compares the ways a list of 1000 pods leaves the server:
// plain JSON is spliced from the stored bytes (with a label selector, after
// reading each pod's labels alone), the others decode every object first. Each runs on pods written with field management and on
// pods written without it (the server as it was before managedFields), so
// the cost of managedFields on reads is the ratio of the two in one run;
// B/object is the size of one pod in the JSON list.
func BenchmarkList(b *testing.B) {
	for _, managed := range []bool{false, true} {
		name := "without-managedFields"
		if managed {
			name = "with-managedFields"
		}
		ts := startTestServer(b)
		if !managed {
			ts.api.fields = nil
		}
		createMany(b, ts, "/api/v1/namespaces/default/pods?fieldManager=kube-controller-manager", 1000, func(i int) string {
			return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%04d","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, i)
		})
		for _, c := range []struct{ name, accept, query string }{
			{"json-spliced", "application/json", ""},
			{"json-label-selector", "application/json", "?labelSelector=app%3Dweb"},
			{"protobuf-decoded", "application/vnd.kubernetes.protobuf", ""},
			{"table", tableAccept, ""},
		} {
			b.Run(c.name+"/"+name, func(b *testing.B) {
				var n int64
				for b.Loop() {
					n = listOnce(b, ts.url+"/api/v1/namespaces/default/pods"+c.query, c.accept)
				}
				b.ReportMetric(float64(n)/1000, "B/object")
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
