package apiserver

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestContinueToken(t *testing.T) {
	tok := encodeContinue(632, "/core/pods/default/", "/core/pods/default/web-1\x00")
	got, err := decodeContinue(tok)
	if err != nil {
		t.Fatal(err)
	}
	if got.RV != 632 || got.Start != "web-1\x00" {
		t.Errorf("decoded %+v", got)
	}
	for _, bad := range []string{"%%%", "e30", encodeContinue(1, "/p/", "/p//etc"), encodeContinue(1, "/p/", "/p/../x")} {
		if _, err := decodeContinue(bad); !apierrors.IsBadRequest(err) {
			t.Errorf("token %q: %v, want BadRequest", bad, err)
		}
	}
}
