package operator

import (
	"cmp"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"regexp"
	"strconv"

	. "github.com/onsi/gomega"
)

// reconcileSuccesses is the memcached controller's count of successful
// reconciles in Prometheus's text format.
var reconcileSuccesses = regexp.MustCompile(`(?m)^controller_runtime_reconcile_total\{controller="memcached",result="success"\} (\d+)$`)

// expectSecureMetrics scrapes /metrics as Prometheus does in kubebuilder's
// default deployment: with a bearer token it gets controller-runtime's
// metrics, without one 401. The manager checks the token with a
// TokenReview and the scrape with a SubjectAccessReview. testenv's server
// has no token file, so Config carries no token and its TokenReview takes
// any token (as system:unsecured, in system:masters); its
// SubjectAccessReview allows every request.
func expectSecureMetrics() {
	token := cmp.Or(cfg.BearerToken, "any-token")
	var body string
	Eventually(func(g Gomega) {
		status, b, err := scrapeMetrics(ctx, metricsAddr, token)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(status).To(Equal(http.StatusOK), "with a token: %s", b)
		body = b
	}).Should(Succeed())
	m := reconcileSuccesses.FindStringSubmatch(body)
	Expect(m).NotTo(BeNil(), "controller_runtime_reconcile_total of the memcached controller in:\n%s", body)
	n, err := strconv.Atoi(m[1])
	Expect(err).NotTo(HaveOccurred())
	Expect(n).To(BeNumerically(">", 0), "successful reconciles")

	status, b, err := scrapeMetrics(ctx, metricsAddr, "")
	Expect(err).NotTo(HaveOccurred())
	Expect(status).To(Equal(http.StatusUnauthorized), "without a token: %s", b)
}

// scrapeMetrics GETs https://addr/metrics, with the bearer token unless
// it is empty. The certificate is the self-signed one controller-runtime
// makes when no cert dir holds one, so it is not verified (kubebuilder's
// e2e test scrapes with curl -k).
func scrapeMetrics(ctx context.Context, addr, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}
