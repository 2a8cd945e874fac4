package server

import (
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/miniapi/miniapi/test/e2e/harness"
)

// TestTLSAndTokens serves HTTPS with a token file: the kubeconfig the server
// writes works as it is, and a request without a token gets 401.
func TestTLSAndTokens(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := harness.WriteSelfSigned(t, dir)
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("t0ken,admin,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	data := filepath.Join(dir, "data")
	cmd := exec.Command(harness.Binary(t, "miniapi"), "--data-dir", data, "--listen", addr, "--controllers=false",
		"--tls-cert-file", certFile, "--tls-private-key-file", keyFile, "--token-auth-file", tokens)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := insecure.Get("https://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("HTTPS server not ready: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := insecure.Get("https://" + addr + "/api/v1/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("request without a token: %d, want 401", resp.StatusCode)
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(data, "kubeconfig"))
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
