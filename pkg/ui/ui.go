// Package ui serves the live page at /ui/: one namespace's Deployments,
// ReplicaSets and Pods, desired against actual, kept up to date by the
// page's own list and watch calls to the ordinary API, with an object's
// history and the reconcile journal beside them.
//
// The page is three embedded files (a templated HTML shell, a script and a
// stylesheet) so that it works with no network access and no build step.
// The files hold no cluster data: every object the page shows comes from
// the API, with the bearer token when the server asks for one.
package ui

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Prefix is the path the page is served under.
const Prefix = "/ui/"

//go:embed static
var static embed.FS

// indexPage is the HTML shell; parsed once, as its text never changes.
var indexPage = template.Must(template.ParseFS(static, "static/index.html"))

// Options configures the page.
type Options struct {
	// TokenRequired says the API asks every request for a bearer token:
	// the page then asks the user for one before it reads anything.
	TokenRequired bool
}

// Handler serves the page: Prefix itself is the shell for the namespace
// of the "namespace" query parameter ("default" without it), and
// Prefix+"app.js" and Prefix+"app.css" are the files it loads.
func Handler(opts Options) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		setSecurityHeaders(w.Header())
		switch name := strings.TrimPrefix(r.URL.Path, Prefix); name {
		case "":
			serveIndex(w, r, opts)
		case "app.js":
			serveFile(w, "static/app.js", "text/javascript; charset=utf-8")
		case "app.css":
			serveFile(w, "static/app.css", "text/css; charset=utf-8")
		default:
			http.NotFound(w, r)
		}
	})
}

// setSecurityHeaders lets the page load only its own files and talk only
// to its own server, so that even a slip in the script could not send
// the token elsewhere, and keeps other sites from framing it.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// serveIndex renders the shell for the requested namespace.
func serveIndex(w http.ResponseWriter, r *http.Request, opts Options) {
	ns := r.URL.Query().Get("namespace")
	if ns == "" {
		ns = "default"
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		// The value is not echoed: the answer carries only the rule.
		http.Error(w, "invalid namespace: "+strings.Join(errs, "; "), http.StatusBadRequest)
		return
	}
	var buf bytes.Buffer
	data := struct {
		Namespace     string
		TokenRequired bool
	}{ns, opts.TokenRequired}
	if err := indexPage.Execute(&buf, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

func serveFile(w http.ResponseWriter, path, contentType string) {
	b, err := static.ReadFile(path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(b)
}
