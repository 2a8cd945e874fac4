package cli

import (
	"bytes"
	"testing"
)

func TestTabWriterLayoutMatchesKubectl(t *testing.T) {
	var out bytes.Buffer
	w := newTabWriter(&out)
	w.Write([]byte("NAME\tREADY\tUP-TO-DATE\tAVAILABLE\tAGE\n"))
	w.Write([]byte("web\t0/3\t3\t0\t2s\n"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	// From the reference: `kubectl get deploy`.
	want := "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\n" +
		"web    0/3     3            0           2s\n"
	if out.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", out.String(), want)
	}
}

func TestTabWriterMinimumWidthAndRememberedWidths(t *testing.T) {
	var out bytes.Buffer
	w := newTabWriter(&out)
	w.Write([]byte("A\tB\n"))
	w.Flush()
	// A later, narrower row keeps the remembered width; a wider one grows it.
	w.Write([]byte("a\tb\n"))
	w.Flush()
	w.Write([]byte("abcdefgh\tc\n"))
	w.Flush()
	want := "A     B\n" + "a     b\n" + "abcdefgh   c\n"
	if out.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", out.String(), want)
	}
	w.ResetWidths()
	out.Reset()
	w.Write([]byte("a\tb\n"))
	w.Flush()
	if out.String() != "a     b\n" {
		t.Fatalf("after reset got %q", out.String())
	}
}
