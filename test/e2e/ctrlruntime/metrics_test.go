package ctrlruntime

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestSecureMetrics serves a manager's metrics as kubebuilder scaffolds
// them (HTTPS, authenticated by TokenReview and authorized by
// SubjectAccessReview against the API server) and scrapes them with a
// token miniapi knows, none, and one it does not know.
func TestSecureMetrics(t *testing.T) {
	const managerToken, scraperToken = "manager-token-0123456789", "prometheus-token-0123456789"
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	csv := managerToken + ",manager,manager-uid\n" + scraperToken + ",prometheus,prometheus-uid,\"monitoring\"\n"
	if err := os.WriteFile(tokens, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.StartTLS(t, "--token-auth-file", tokens)
	// The kubeconfig carries the server's CA and the first token (the manager's).
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	opts := managerOptions("secure-metrics")
	opts.Metrics = metricsserver.Options{
		BindAddress:    freeLoopbackAddr(t),
		SecureServing:  true,
		FilterProvider: filters.WithAuthenticationAndAuthorization,
		CertDir:        t.TempDir(), // empty: the server makes a self-signed certificate
	}
	m := run(t, newManager(t, cfg, opts))
	m.waitElected(t, 30*time.Second)
	url := "https://" + opts.Metrics.BindAddress + "/metrics"

	var code int
	var body string
	eventually(t, 30*time.Second, "the metrics server to answer", func(ctx context.Context) (bool, error) {
		code, body, err = scrape(ctx, url, scraperToken)
		return err == nil, nil
	})
	if code != http.StatusOK || !strings.Contains(body, "rest_client_requests_total") || !strings.Contains(body, "leader_election_master_status") {
		t.Fatalf("scrape with a known token: %d\n%.500s", code, body)
	}
	if code, body, err := scrape(context.Background(), url, ""); err != nil || code != http.StatusUnauthorized {
		t.Errorf("scrape without a token: %d %q %v; want 401", code, body, err)
	}
	// An unknown token's TokenReview answers authenticated false with
	// error "invalid bearer token", as kube-apiserver's does (the reference
	// records it); controller-runtime's filter turns that error into 500.
	if code, body, err := scrape(context.Background(), url, "unknown-token-0123456789"); err != nil || code != http.StatusInternalServerError {
		t.Errorf("scrape with an unknown token: %d %q %v; want 500 as against kube-apiserver", code, body, err)
	}
}

// scrape GETs url with token as bearer (none if empty), trusting the
// metrics server's self-signed certificate.
func scrape(ctx context.Context, url, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// freeLoopbackAddr is a 127.0.0.1 address with a port free just now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
