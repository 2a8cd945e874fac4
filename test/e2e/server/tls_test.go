package server

import (
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestTLSAndTokens serves HTTPS with a token file: the kubeconfig the server
// writes works as it is, and a request without a token gets 401.
func TestTLSAndTokens(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("t0ken,admin,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.StartTLS(t, "--controllers=false", "--token-auth-file", tokens)

	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := insecure.Get(s.URL + "/api/v1/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("request without a token: %d, want 401", resp.StatusCode)
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nss, err := c.CoreV1().Namespaces().List(ctxFor(t), metav1.ListOptions{})
	if err != nil || len(nss.Items) != 4 {
		t.Fatalf("list with the written kubeconfig: %v (%d namespaces)", err, len(nss.Items))
	}
}
