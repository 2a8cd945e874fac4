package server

import (
	"context"
	"crypto/subtle"
	"encoding/csv"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/miniapi/miniapi/pkg/apiserver/authn"
)

// checkExposure refuses to serve plain or unauthenticated HTTP anywhere
// but loopback: an API server reachable from the network without TLS and
// tokens would hand the cluster to anyone who can reach the port.
func checkExposure(cfg *Config) error {
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
// kube-apiserver's CSV format: token,user,uid[,"group1,group2"]. It is the
// API server's authn.Authenticator.
type tokenFile struct {
	users map[string]authenticationv1.UserInfo // token → its user
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
	t := &tokenFile{users: map[string]authenticationv1.UserInfo{}}
	for i, rec := range records {
		if len(rec) < 3 || strings.TrimSpace(rec[0]) == "" {
			return nil, fmt.Errorf("--token-auth-file %s: line %d: want token,user,uid", path, i+1)
		}
		tok := strings.TrimSpace(rec[0])
		user := authenticationv1.UserInfo{Username: strings.TrimSpace(rec[1]), UID: strings.TrimSpace(rec[2])}
		if len(rec) > 3 {
			for _, g := range strings.Split(rec[3], ",") {
				if g = strings.TrimSpace(g); g != "" {
					user.Groups = append(user.Groups, g)
				}
			}
		}
		t.users[tok] = user
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

// authenticator is t as the API server's Authenticator; nil without a
// token file (a nil *tokenFile must not become a non-nil interface).
func (t *tokenFile) authenticator() authn.Authenticator {
	if t == nil {
		return nil
	}
	return t
}

// AuthenticateToken finds tok's user, comparing in constant time so that
// answer times do not leak how much of a token was right.
func (t *tokenFile) AuthenticateToken(_ context.Context, tok string) (authenticationv1.UserInfo, bool, error) {
	var found authenticationv1.UserInfo
	ok := false
	for known, user := range t.users {
		if subtle.ConstantTimeCompare([]byte(known), []byte(tok)) == 1 {
			found, ok = user, true
		}
	}
	return found, ok, nil
}
