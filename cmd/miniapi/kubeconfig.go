package main

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes DATA_DIR/kubeconfig with cluster, user and context
// `miniapi` (namespace default), usable as it is by minictl and kubectl.
func writeKubeconfig(cfg *config, url, token string) error {
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
	path := filepath.Join(cfg.DataDir, "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}
