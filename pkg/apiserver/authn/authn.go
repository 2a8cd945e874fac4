// Package authn says who a request comes from. The API server asks an
// Authenticator about each request's bearer token and keeps the answer in
// the request's context, where handlers (the review kinds) read it.
//
// miniapi authorizes nothing: every user it knows may do everything. A
// server without an Authenticator serves loopback only (cmd/miniapi
// refuses anything else), and every request on it is Unsecured, the user
// kube-apiserver gave requests on its old unauthenticated local port.
package authn

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Authenticator finds the user a bearer token belongs to.
type Authenticator interface {
	// AuthenticateToken returns the token's user, and false for a token it
	// does not know. The user's groups need not include
	// system:authenticated: the server adds it.
	AuthenticateToken(ctx context.Context, token string) (authenticationv1.UserInfo, bool, error)
}

// Groups every authenticated user is in, and the one that may do
// everything in kube's default RBAC.
const (
	AllAuthenticated = "system:authenticated"
	SystemMasters    = "system:masters"
)

// Unsecured is the user of every request to a server without an
// Authenticator: an administrator, named as kube-apiserver named requests
// on its unauthenticated local port.
func Unsecured() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: "system:unsecured", Groups: []string{SystemMasters, AllAuthenticated}}
}

// Authenticated is u as the server presents it: in system:authenticated.
func Authenticated(u authenticationv1.UserInfo) authenticationv1.UserInfo {
	for _, g := range u.Groups {
		if g == AllAuthenticated {
			return u
		}
	}
	u.Groups = append(append([]string(nil), u.Groups...), AllAuthenticated)
	return u
}

type userKey struct{}
type authenticatorKey struct{}

// WithUser returns ctx carrying the requesting user.
func WithUser(ctx context.Context, u authenticationv1.UserInfo) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom is the requesting user; false when ctx carries none.
func UserFrom(ctx context.Context) (authenticationv1.UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(authenticationv1.UserInfo)
	return u, ok
}

// WithAuthenticator returns ctx carrying the server's Authenticator (nil:
// the server has none), for handlers that check tokens themselves
// (tokenreviews).
func WithAuthenticator(ctx context.Context, a Authenticator) context.Context {
	return context.WithValue(ctx, authenticatorKey{}, a)
}

// AuthenticatorFrom is the server's Authenticator, nil if it has none.
func AuthenticatorFrom(ctx context.Context) Authenticator {
	a, _ := ctx.Value(authenticatorKey{}).(Authenticator)
	return a
}
