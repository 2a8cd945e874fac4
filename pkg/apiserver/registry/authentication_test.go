package registry

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/miniapi/miniapi/pkg/apiserver/authn"
)

type oneToken struct{}

func (oneToken) AuthenticateToken(_ context.Context, tok string) (authenticationv1.UserInfo, bool, error) {
	return authenticationv1.UserInfo{Username: "admin", UID: "admin-uid", Groups: []string{"system:masters"}}, tok == "good", nil
}

func tokenReview(t *testing.T, ctx context.Context, token string, audiences ...string) authenticationv1.TokenReviewStatus {
	t.Helper()
	out, err := createTokenReview(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: audiences}})
	if err != nil {
		t.Fatal(err)
	}
	return out.(*authenticationv1.TokenReview).Status
}

func TestTokenReviewAnswers(t *testing.T) {
	ctx := authn.WithAuthenticator(context.Background(), oneToken{})
	st := tokenReview(t, ctx, "good")
	if !st.Authenticated || st.User.Username != "admin" || strings.Join(st.User.Groups, ",") != "system:masters,system:authenticated" ||
		strings.Join(st.Audiences, ",") != apiAudience || st.Error != "" {
		t.Errorf("good token: %+v", st)
	}
	if st := tokenReview(t, ctx, "bad"); st.Authenticated || st.Error != "invalid bearer token" || st.User.Username != "" {
		t.Errorf("bad token: %+v", st)
	}
	if st := tokenReview(t, ctx, "good", "https://example.com"); st.Authenticated || st.Error != "invalid bearer token" {
		t.Errorf("another audience: %+v", st)
	}
	if st := tokenReview(t, ctx, "good", "https://example.com", apiAudience); !st.Authenticated {
		t.Errorf("audiences including the server's: %+v", st)
	}
	// Without an Authenticator the server takes any token as its admin.
	if st := tokenReview(t, context.Background(), "anything"); !st.Authenticated || st.User.Username != "system:unsecured" {
		t.Errorf("no authenticator: %+v", st)
	}
	if _, err := createTokenReview(ctx, &authenticationv1.TokenReview{}); err == nil || err.Error() != "token is required for TokenReview in authentication" {
		t.Errorf("empty token: %v", err)
	}
}

func TestSelfSubjectReviewNeedsAUser(t *testing.T) {
	if _, err := createSelfSubjectReview(context.Background(), &authenticationv1.SelfSubjectReview{}); err == nil {
		t.Error("answered without a user")
	}
	u := authenticationv1.UserInfo{Username: "jane", Groups: []string{"devs", "system:authenticated"}}
	out, err := createSelfSubjectReview(authn.WithUser(context.Background(), u), &authenticationv1.SelfSubjectReview{})
	if err != nil || out.(*authenticationv1.SelfSubjectReview).Status.UserInfo.Username != "jane" {
		t.Errorf("%v %+v", err, out)
	}
}
