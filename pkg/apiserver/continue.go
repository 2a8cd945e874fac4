package apiserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// continueToken is the opaque value of metadata.continue, in
// kube-apiserver's shape: the list's revision and the key (relative to the
// collection prefix) the next page starts at.
type continueToken struct {
	APIVersion string `json:"v"`
	RV         int64  `json:"rv"`
	Start      string `json:"start"`
}

const tokenVersion = "meta.k8s.io/v1"

// encodeContinue makes the token for a page that ends before nextKey.
func encodeContinue(rv int64, prefix, nextKey string) string {
	b, _ := json.Marshal(continueToken{APIVersion: tokenVersion, RV: rv, Start: nextKey[len(prefix):]})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue reads a token; a malformed one is a 400.
func decodeContinue(s string) (continueToken, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		// kube-apiserver's tokens are padded std encoding; accept both.
		b, err = base64.StdEncoding.DecodeString(s)
	}
	var t continueToken
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err == nil && t.APIVersion != tokenVersion {
		err = fmt.Errorf("unsupported version %q", t.APIVersion)
	}
	if err == nil && (t.Start == "" || t.Start[0] == '/' || containsDotDot(t.Start)) {
		err = fmt.Errorf("invalid start key %q", t.Start)
	}
	if err != nil {
		return t, apierrors.NewBadRequest(fmt.Sprintf("continue key is not valid: %v", err))
	}
	return t, nil
}

func containsDotDot(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == '.' {
			return true
		}
	}
	return false
}

// errContinueExpired is kube-apiserver's 410 for a token whose revision is
// no longer kept; it carries a token that continues without consistency.
func errContinueExpired(inconsistent string) error {
	err := apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
	err.ErrStatus.ListMeta.Continue = inconsistent
	return err
}
