package main

import (
	"crypto/subtle"
	"encoding/csv"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// checkExposure refuses to serve plain or unauthenticated HTTP anywhere
// but loopback: an API server reachable from the network without TLS and
// tokens would hand the cluster to anyone who can reach the port.
func checkExposure(cfg *config) error {
	if (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == "") {
		return errors.New("--tls-cert-file and --tls-private-key-file go together")
	}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", cfg.Listen, err)
	}
	if isLoopback(host) {
		return nil
	}
	if cfg.TLSCertFile == "" || cfg.TokenAuthFile == "" {
		return fmt.Errorf("refusing to listen on %s without TLS and authentication: plain HTTP without a token is allowed only on loopback (127.0.0.1, ::1, localhost); pass --tls-cert-file, --tls-private-key-file and --token-auth-file, or listen on 127.0.0.1", cfg.Listen)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tokenFile holds the bearer tokens of --token-auth-file, in
// kube-apiserver's CSV format: token,user,uid[,"groups"].
type tokenFile struct {
	users map[string]string // token → user
	order []string
}

func loadTokens(path string) (*tokenFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--token-auth-file: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.Comment = '#'
	records, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("--token-auth-file %s: %w", path, err)
	}
	t := &tokenFile{users: map[string]string{}}
	for i, rec := range records {
		if len(rec) < 3 || strings.TrimSpace(rec[0]) == "" {
			return nil, fmt.Errorf("--token-auth-file %s: line %d: want token,user,uid", path, i+1)
		}
		tok := strings.TrimSpace(rec[0])
		t.users[tok] = strings.TrimSpace(rec[1])
		t.order = append(t.order, tok)
	}
	if len(t.order) == 0 {
		return nil, fmt.Errorf("--token-auth-file %s: no tokens", path)
	}
	return t, nil
}

// first is the token written into the kubeconfig ("" without a file).
func (t *tokenFile) first() string {
	if t == nil {
		return ""
	}
	return t.order[0]
}

// authenticate answers 401 to API requests without a known bearer token;
// health checks stay open so that probes need no secret.
func (t *tokenFile) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz", "/livez", "/healthz":
			next.ServeHTTP(w, r)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if ok && t.valid(strings.TrimSpace(tok)) {
			next.ServeHTTP(w, r)
			return
		}
		st := apierrors.NewUnauthorized("Unauthorized").Status()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":401}`+"\n", st.Message, st.Reason)
	})
}

func (t *tokenFile) valid(tok string) bool {
	found := false
	for known := range t.users {
		if subtle.ConstantTimeCompare([]byte(known), []byte(tok)) == 1 {
			found = true
		}
	}
	return found
}
