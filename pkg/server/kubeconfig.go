package server

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes DATA_DIR/kubeconfig with cluster, user and context
// `miniapi` (namespace default), usable as it is by minictl and kubectl.
func writeKubeconfig(cfg Config, url, token string) error {
	kc := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = url
	if cfg.TLSCertFile != "" {
		ca, err := os.ReadFile(cfg.TLSCertFile)
		if err != nil {
			return fmt.Errorf("reading --tls-cert-file: %w", err)
		}
		cluster.CertificateAuthorityData = ca
	}
	user := clientcmdapi.NewAuthInfo()
	user.Token = token
	ctx := clientcmdapi.NewContext()
	ctx.Cluster, ctx.AuthInfo, ctx.Namespace = "miniapi", "miniapi", "default"
	kc.Clusters["miniapi"] = cluster
	kc.AuthInfos["miniapi"] = user
	kc.Contexts["miniapi"] = ctx
	kc.CurrentContext = "miniapi"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return err
	}
	// Written aside and renamed into place, so a client that reads the file
	// while the server starts sees the old kubeconfig or the new one, never
	// half of it.
	path := filepath.Join(cfg.DataDir, "kubeconfig")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
