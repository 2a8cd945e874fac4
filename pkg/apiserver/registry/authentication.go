package registry

// The reviews of authentication.k8s.io/v1: create-only, nothing stored.
// A TokenReview answers what the server decides for a request bearing the
// token; a SelfSubjectReview says who the request's user is.

import (
	"context"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/miniapi/miniapi/pkg/apiserver/authn"
)

const authenticationGroup = "authentication.k8s.io"

// apiAudience is the audience kube-apiserver accepts tokens for by
// default (its --api-audiences, from the service account issuer).
const apiAudience = "https://kubernetes.default.svc"

// invalidToken is kube-apiserver's error for a bearer token no
// authenticator knows.
const invalidToken = "invalid bearer token"

func selfSubjectReviews() *Resource {
	return review(authenticationGroup, "selfsubjectreviews", "SelfSubjectReview",
		func() runtime.Object { return &authenticationv1.SelfSubjectReview{} }, createSelfSubjectReview)
}

func tokenReviews() *Resource {
	return review(authenticationGroup, "tokenreviews", "TokenReview",
		func() runtime.Object { return &authenticationv1.TokenReview{} }, createTokenReview)
}

// createSelfSubjectReview echoes the requesting user.
func createSelfSubjectReview(ctx context.Context, _ runtime.Object) (runtime.Object, error) {
	user, ok := authn.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	return &authenticationv1.SelfSubjectReview{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Now().UTC().Truncate(time.Second))},
		Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: user},
	}, nil
}

// createTokenReview checks the token with the server's Authenticator. A
// server without one takes any token (every request on it is
// authn.Unsecured), so every token authenticates as that user there.
// Static tokens are good for the API server's own audience only.
func createTokenReview(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	r := obj.(*authenticationv1.TokenReview)
	if r.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	r.Status = authenticationv1.TokenReviewStatus{}
	audiences := []string{apiAudience}
	if len(r.Spec.Audiences) > 0 && !slices.Contains(r.Spec.Audiences, apiAudience) {
		r.Status.Error = invalidToken
		return r, nil
	}
	user, ok := authn.Unsecured(), true
	if a := authn.AuthenticatorFrom(ctx); a != nil {
		var err error
		if user, ok, err = a.AuthenticateToken(ctx, r.Spec.Token); err != nil {
			r.Status.Error = err.Error()
			return r, nil
		}
	}
	if !ok {
		r.Status.Error = invalidToken
		return r, nil
	}
	r.Status.Authenticated = true
	r.Status.User = authn.Authenticated(user)
	r.Status.Audiences = audiences
	return r, nil
}
