package revcache

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// counted returns a decode function that builds a pod named name and
// counts its calls in n.
func counted(name string, size int, n *int) func() (runtime.Object, int, error) {
	return func() (runtime.Object, int, error) {
		*n++
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}, size, nil
	}
}

func TestGetDerivesOncePerRevision(t *testing.T) {
	c := New[runtime.Object](1000)
	var n int
	k := Key{Owner: "pods", Key: "/pods/a", Revision: 5}
	first, _ := c.Get(k, counted("a", 10, &n))
	again, _ := c.Get(k, counted("a", 10, &n))
	if n != 1 || first != again {
		t.Fatalf("decoded %d times, same object %v; want once and the same", n, first == again)
	}
	// Another revision, and the same key read through another owner,
	// are other objects.
	_, _ = c.Get(Key{Owner: "pods", Key: "/pods/a", Revision: 6}, counted("a", 10, &n))
	_, _ = c.Get(Key{Owner: "pods-v2", Key: "/pods/a", Revision: 5}, counted("a", 10, &n))
	if n != 3 {
		t.Fatalf("decoded %d times, want 3", n)
	}
}

func TestBudgetEvictsTheLeastRecentGeneration(t *testing.T) {
	c := New[runtime.Object](100) // two generations of 50 bytes
	var n int
	key := func(i int) Key { return Key{Owner: "pods", Key: fmt.Sprint(i), Revision: 1} }
	for i := 0; i < 20; i++ {
		_, _ = c.Get(key(i), counted("p", 10, &n))
		if i%3 == 0 {
			// Reading key 0 again and again keeps it young.
			_, _ = c.Get(key(0), counted("p", 10, &n))
		}
	}
	if c.Len() > 10 {
		t.Fatalf("holds %d objects of 10 bytes with a budget of 100", c.Len())
	}
	before := n
	_, _ = c.Get(key(0), counted("p", 10, &n))
	if n != before {
		t.Error("an object read again and again was evicted")
	}
	_, _ = c.Get(key(1), counted("p", 10, &n))
	if n != before+1 {
		t.Error("an object read once, long ago, is still held")
	}
}

func TestTooLargeAndErrorsAreNotKept(t *testing.T) {
	c := New[runtime.Object](100)
	var n int
	big := Key{Owner: "pods", Key: "big", Revision: 1}
	_, _ = c.Get(big, counted("big", 51, &n))
	_, _ = c.Get(big, counted("big", 51, &n))
	if n != 2 {
		t.Errorf("an object larger than half the budget was decoded %d times, want every time (2)", n)
	}
	failed := 0
	bad := func() (runtime.Object, int, error) { failed++; return nil, 10, errors.New("bad json") }
	k := Key{Owner: "pods", Key: "bad", Revision: 1}
	if _, err := c.Get(k, bad); err == nil {
		t.Fatal("the decode error was lost")
	}
	_, _ = c.Get(k, bad)
	if failed != 2 {
		t.Errorf("a failed decode was cached: %d calls, want 2", failed)
	}
}

func TestPutIsFoundByGet(t *testing.T) {
	c := New[string](100)
	k := Key{Key: "a", Revision: 3}
	c.Put(k, 10, "put")
	got, _ := c.Get(k, func() (string, int, error) { return "derived", 10, nil })
	if got != "put" {
		t.Fatalf("got %q, want what was put", got)
	}
}

func TestNilCacheDecodesEveryTime(t *testing.T) {
	c := New[runtime.Object](0)
	var n int
	k := Key{Owner: "pods", Key: "a", Revision: 1}
	_, _ = c.Get(k, counted("a", 10, &n))
	_, _ = c.Get(k, counted("a", 10, &n))
	if n != 2 || c.Len() != 0 {
		t.Fatalf("a nil cache decoded %d times and holds %d", n, c.Len())
	}
}

func TestLookupDoesNotDerive(t *testing.T) {
	c := New[string](100)
	k := Key{Key: "a", Revision: 1}
	if _, ok := c.Lookup(k); ok {
		t.Fatal("an empty cache found a value")
	}
	c.Put(k, 10, "v")
	if v, ok := c.Lookup(k); !ok || v != "v" {
		t.Fatalf("Lookup = %q, %v after Put", v, ok)
	}
	var none *Cache[string]
	if _, ok := none.Lookup(k); ok {
		t.Fatal("a nil cache found a value")
	}
}
