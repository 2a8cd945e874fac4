package apiserver

import (
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/miniapi/miniapi/pkg/apiserver/authn"
)

// authenticate puts the requesting user in the request's context: the
// owner of its bearer token when the server has an Authenticator (a
// request without a known token gets 401, health checks excepted, so that
// probes need no secret, and the live page's files read over loopback,
// see isPublicPage), else authn.Unsecured. Impersonation headers
// (kubectl --as) then replace the user, as kube-apiserver does; miniapi
// lets every user impersonate.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := authn.WithAuthenticator(r.Context(), s.authn)
		if s.authn == nil {
			user := impersonated(r, authn.Unsecured())
			next.ServeHTTP(w, r.WithContext(authn.WithUser(ctx, user)))
			return
		}
		if isHealthPath(r.URL.Path) || isPublicPage(r) {
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		tok, ok := bearerToken(r)
		var user authenticationv1.UserInfo
		if ok {
			var err error
			if user, ok, err = s.authn.AuthenticateToken(ctx, tok); err != nil {
				writeError(w, apierrors.NewInternalError(err))
				return
			}
		}
		if !ok {
			writeError(w, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		user = impersonated(r, authn.Authenticated(user))
		next.ServeHTTP(w, r.WithContext(authn.WithUser(ctx, user)))
	})
}

// bearerToken is the token of the request's "Authorization: Bearer
// TOKEN" header. The scheme is matched without regard to case, as RFC 7235
// says and kube-apiserver does ("bearer", "BEARER"); as there, the token
// is the word after the scheme's one space, so "Bearer  TOKEN" has none.
func bearerToken(r *http.Request) (string, bool) {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok, _, _ := strings.Cut(rest, " ")
	return tok, tok != ""
}

func isHealthPath(p string) bool {
	switch p {
	case "/readyz", "/livez", "/healthz":
		return true
	}
	return false
}

// Impersonation headers, as client-go's rest.ImpersonationConfig sends them.
const (
	impersonateUser        = "Impersonate-User"
	impersonateUID         = "Impersonate-Uid"
	impersonateGroup       = "Impersonate-Group"
	impersonateExtraPrefix = "Impersonate-Extra-"
)

// impersonated is the user a request acts as: the one its impersonation
// headers name (in system:authenticated, as kube adds it), or user.
func impersonated(r *http.Request, user authenticationv1.UserInfo) authenticationv1.UserInfo {
	name := r.Header.Get(impersonateUser)
	if name == "" {
		return user
	}
	as := authenticationv1.UserInfo{Username: name, UID: r.Header.Get(impersonateUID), Groups: r.Header.Values(impersonateGroup)}
	for key, values := range r.Header {
		if k, ok := strings.CutPrefix(key, impersonateExtraPrefix); ok {
			if as.Extra == nil {
				as.Extra = map[string]authenticationv1.ExtraValue{}
			}
			as.Extra[strings.ToLower(k)] = values
		}
	}
	return authn.Authenticated(as)
}
