// Command miniapi serves the Kubernetes API from one process: the API
// server over an embedded bbolt store, and the controllers that act on it.
// It is its flags and package server.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/miniapi/miniapi/pkg/server"
)

func main() {
	cfg := server.Default()
	logLevel := "info"
	cmd := &cobra.Command{
		Use:           "miniapi",
		Short:         "A small Kubernetes-compatible API server with simulated nodes",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var err error
			if cfg.Logger, err = newLogger(logLevel); err != nil {
				return err
			}
			cfg.LeaderElect = leaderElect(cmd.Flags(), cfg.LeaderElect)
			return run(ctx, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "directory for the bbolt database, kubeconfig and certificates; created if missing")
	f.StringVar(&cfg.Listen, "listen", cfg.Listen, "address to serve the API on")
	f.IntVar(&cfg.WatchHistory, "watch-history", cfg.WatchHistory, "past events kept for watches to resume from; older watches end with 410 Expired")
	f.IntVar(&cfg.JournalPasses, "journal-passes", cfg.JournalPasses, "reconcile passes the journal keeps (GET /miniapi/v1/journal, minictl journal); 0 turns the journal off")
	f.IntVar(&cfg.Nodes, "nodes", cfg.Nodes, "simulated nodes that pods are placed on")
	f.DurationVar(&cfg.PodReadyDelay, "pod-ready-delay", cfg.PodReadyDelay, "time a simulated pod takes to become Running/Ready, and to go once terminating")
	f.DurationVar(&cfg.PodRunDuration, "pod-run-duration", cfg.PodRunDuration, "time a run-to-completion pod (restartPolicy Never or OnFailure) runs once Running before its containers exit")
	f.BoolVar(&cfg.Controllers, "controllers", cfg.Controllers, "run the in-process controllers (deployment, replicaset, simulated kubelet, garbage collector, namespace)")
	f.BoolVar(&cfg.Profiling, "profiling", cfg.Profiling, "serve /debug/pprof/")
	f.BoolVar(&cfg.UnsafeNoFsync, "unsafe-no-fsync", cfg.UnsafeNoFsync, "do not fsync: for throwaway test servers only; a crash may lose acknowledged writes")
	f.Int64Var(&cfg.QuotaBackendBytes, "quota-backend-bytes", cfg.QuotaBackendBytes, "database quota in bytes (as etcd's): past it creates and updates get 500 \"database space exceeded\" while reads and deletes go on; 0: no quota")
	f.DurationVar(&cfg.EventTTL, "event-ttl", cfg.EventTTL, "amount of time to retain events (as kube-apiserver's): an event is deleted this long after its last write; 0: never")
	f.BoolVar(&cfg.CompactOnStart, "compact-on-start", cfg.CompactOnStart, "compact the database file (give its free pages back to the file system) before serving; done anyway when the file is larger than --quota-backend-bytes")
	f.StringVar(&cfg.TLSCertFile, "tls-cert-file", "", "x509 certificate for HTTPS (with --tls-private-key-file)")
	f.StringVar(&cfg.TLSKeyFile, "tls-private-key-file", "", "private key matching --tls-cert-file")
	f.StringVar(&cfg.TokenAuthFile, "token-auth-file", "", "CSV file of bearer tokens: token,user,uid[,\"group1,group2\"]; when set every API request needs one")
	f.StringSliceVar(&cfg.EtcdServers, "etcd-servers", nil, "comma-separated etcd v3 URLs: store everything in etcd instead of bbolt")
	f.StringVar(&cfg.EtcdPrefix, "etcd-prefix", cfg.EtcdPrefix, "key prefix in etcd")
	f.StringVar(&cfg.EtcdCAFile, "etcd-cafile", "", "CA bundle that signs the etcd servers' certificates")
	f.StringVar(&cfg.EtcdCertFile, "etcd-certfile", "", "client certificate for etcd (with --etcd-keyfile)")
	f.StringVar(&cfg.EtcdKeyFile, "etcd-keyfile", "", "private key of --etcd-certfile")
	f.DurationVar(&cfg.EtcdCompactionInterval, "etcd-compaction-interval", cfg.EtcdCompactionInterval, "how often etcd's history is compacted (to the revision seen one interval before); 0 disables")
	f.DurationVar(&cfg.RequestTimeout, "request-timeout", cfg.RequestTimeout, "how long a request may take before it gets 504 Timeout, body reading included; watches are exempt (see --min-request-timeout); 0: no limit")
	f.IntVar(&cfg.MinRequestTimeout, "min-request-timeout", cfg.MinRequestTimeout, "seconds: a watch that sets no timeoutSeconds ends after a random time between this and twice this; 0: never")
	f.DurationVar(&cfg.WatchWriteTimeout, "watch-write-timeout", cfg.WatchWriteTimeout, "a watch whose client takes no data for this long while events wait is closed (the client resumes from its last resourceVersion); idle watches are not affected; 0: never")
	f.IntVar(&cfg.MaxRequestsInflight, "max-requests-inflight", cfg.MaxRequestsInflight, "reads (get, list) served at once; past it a request gets 429 with Retry-After; watches are not counted; 0: no limit")
	f.IntVar(&cfg.MaxMutatingRequestsInflight, "max-mutating-requests-inflight", cfg.MaxMutatingRequestsInflight, "writes (create, update, patch, delete) served at once; past it a request gets 429 with Retry-After; 0: no limit")
	f.StringVar(&logLevel, "log-level", logLevel, "log level: debug, info, warn or error")
	f.StringVar(&cfg.ServiceClusterIPRange, "service-cluster-ip-range", cfg.ServiceClusterIPRange, "CIDR that Service ClusterIPs are allocated from (at most 2^20 addresses); its first address is the default/kubernetes Service's")
	f.StringVar(&cfg.ServiceNodePortRange, "service-node-port-range", cfg.ServiceNodePortRange, "port range that Service NodePorts are allocated from, inclusive (\"30000-32767\")")
	f.BoolVar(&cfg.LeaderElect, "leader-elect", true, "run the controllers only while holding Lease kube-system/miniapi-controllers, so that one of several miniapi processes on one etcd runs them; without --etcd-servers (bbolt, one process) off unless given")
	f.DurationVar(&cfg.LeaderElectLeaseDuration, "leader-elect-lease-duration", cfg.LeaderElectLeaseDuration, "how long other candidates wait after the leader's last renewal before they take the Lease")
	f.DurationVar(&cfg.LeaderElectRenewDeadline, "leader-elect-renew-deadline", cfg.LeaderElectRenewDeadline, "how long the leader retries renewing before it stops its controllers; shorter than the lease duration")
	f.DurationVar(&cfg.LeaderElectRetryPeriod, "leader-elect-retry-period", cfg.LeaderElectRetryPeriod, "how often candidates try to take, and the leader to renew, the Lease")

	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "miniapi: %v\n", err)
		os.Exit(1)
	}
}

// run serves until ctx ends (SIGINT/SIGTERM) or the HTTP server fails,
// then stops the server.
func run(ctx context.Context, cfg server.Config) error {
	srv, err := server.Start(ctx, cfg)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return srv.Stop()
	case err := <-srv.Failed():
		_ = srv.Stop()
		return fmt.Errorf("serving: %w", err)
	}
}

// leaderElect is whether to elect a leader: --leader-elect when given;
// otherwise its default (true, as kube-controller-manager's) only with
// --etcd-servers, since a bbolt store has one process and nothing to
// elect among.
func leaderElect(f *pflag.FlagSet, value bool) bool {
	if f.Changed("leader-elect") {
		return value
	}
	etcd := f.Lookup("etcd-servers")
	return value && etcd != nil && etcd.Value.String() != ""
}

func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
}
