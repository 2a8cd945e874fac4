// Command miniapi is a small Kubernetes-compatible control plane: the API
// server over an embedded bbolt store, and the controllers that act on it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/miniapi/miniapi/pkg/apiserver/registry"
)

func main() {
	cfg := defaultConfig()
	cmd := &cobra.Command{
		Use:           "miniapi",
		Short:         "A small Kubernetes-compatible API server with simulated nodes",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return run(ctx, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "directory for the bbolt database, kubeconfig and certificates; created if missing")
	f.StringVar(&cfg.Listen, "listen", cfg.Listen, "address to serve the API on")
	f.IntVar(&cfg.WatchHistory, "watch-history", cfg.WatchHistory, "past events kept for watches to resume from; older watches end with 410 Expired")
	f.IntVar(&cfg.Nodes, "nodes", cfg.Nodes, "simulated nodes that pods are placed on")
	f.DurationVar(&cfg.PodReadyDelay, "pod-ready-delay", cfg.PodReadyDelay, "time a simulated pod takes to become Running/Ready, and to go once terminating")
	f.BoolVar(&cfg.Controllers, "controllers", cfg.Controllers, "run the in-process controllers (deployment, replicaset, simulated kubelet, garbage collector, namespace)")
	f.BoolVar(&cfg.Profiling, "profiling", cfg.Profiling, "serve /debug/pprof/")
	f.StringVar(&cfg.TLSCertFile, "tls-cert-file", "", "x509 certificate for HTTPS (with --tls-private-key-file)")
	f.StringVar(&cfg.TLSKeyFile, "tls-private-key-file", "", "private key matching --tls-cert-file")
	f.StringVar(&cfg.TokenAuthFile, "token-auth-file", "", "CSV file of bearer tokens: token,user,uid[,\"group1,group2\"]; when set every API request needs one")
	f.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "log level: debug, info, warn or error")
	f.StringVar(&cfg.ServiceClusterIPRange, "service-cluster-ip-range", cfg.ServiceClusterIPRange, "CIDR that Service ClusterIPs are allocated from (at most 2^20 addresses); its first address is the default/kubernetes Service's")
	f.StringVar(&cfg.ServiceNodePortRange, "service-node-port-range", cfg.ServiceNodePortRange, "port range that Service NodePorts are allocated from, inclusive (\"30000-32767\")")

	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "miniapi: %v\n", err)
		os.Exit(1)
	}
}

// config is the server's command line.
type config struct {
	DataDir, Listen         string
	WatchHistory, Nodes     int
	PodReadyDelay           time.Duration
	Controllers, Profiling  bool
	TLSCertFile, TLSKeyFile string
	TokenAuthFile, LogLevel string
	// Where Service ClusterIPs and NodePorts come from, as kube-apiserver's flags.
	ServiceClusterIPRange, ServiceNodePortRange string
}

func defaultConfig() *config {
	return &config{
		DataDir: "./miniapi-data", Listen: "127.0.0.1:8080", WatchHistory: 10000,
		Nodes: 3, PodReadyDelay: time.Second, Controllers: true, LogLevel: "info",
		ServiceClusterIPRange: registry.DefaultServiceClusterIPRange, ServiceNodePortRange: registry.DefaultServiceNodePortRange,
	}
}
