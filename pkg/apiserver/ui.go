package apiserver

import (
	"net"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/miniapi/miniapi/pkg/ui"
)

// uiPath is the live page's path without its trailing slash, which
// redirects to ui.Prefix so that the page's relative links resolve.
const uiPath = "/ui"

// addUIRoutes serves the live page (package ui). The page reads
// everything it shows through the API, so it needs no handler of its own
// beyond its files.
func (s *Server) addUIRoutes(r *mux.Router) {
	r.HandleFunc(uiPath, func(w http.ResponseWriter, req *http.Request) {
		to := ui.Prefix
		if req.URL.RawQuery != "" {
			to += "?" + req.URL.RawQuery
		}
		http.Redirect(w, req, to, http.StatusFound)
	})
	r.PathPrefix(ui.Prefix).Handler(ui.Handler(ui.Options{TokenRequired: s.authn != nil}))
}

// isPublicPage says the request reads the live page's files over a
// loopback connection, which needs no token even when the server asks
// API requests for one. A browser cannot attach a bearer token to a page
// load, so the page must load without one to ask for it; the files hold
// no cluster data, and every API request the page then makes carries the
// token. Over any other connection the files are behind the token like
// the rest of the server.
func isPublicPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if r.URL.Path != uiPath && !strings.HasPrefix(r.URL.Path, ui.Prefix) {
		return false
	}
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
