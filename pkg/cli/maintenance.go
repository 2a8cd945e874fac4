package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/miniapi/miniapi/pkg/storage"
)

// The maintenance endpoints miniapi serves for its bbolt store
// (pkg/apiserver/maintenance.go).
const (
	maintenanceStatusPath  = "/miniapi/v1/maintenance/status"
	maintenanceCompactPath = "/miniapi/v1/maintenance/compact"
)

// newMaintenanceCmd is minictl maintenance: miniapi's database space, as
// etcdctl's endpoint status, defrag and compact are etcd's. kubectl has no
// maintenance command, so the name clashes with none.
func newMaintenanceCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "maintenance SUBCOMMAND",
		Short: "Show the server's database space, or compact its database",
		Long: "Show how much of its database the server uses against its quota (--quota-backend-bytes), and\n" +
			"whether its NOSPACE alarm is raised (creates and updates then get 500 \"database space exceeded\"),\n" +
			"or compact the database: trim the watch history if asked, then give the file's free pages back.\n" +
			"miniapi only (its bbolt store); maintain etcd with etcdctl.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMaintenanceStatusCmd(f, streams), newMaintenanceCompactCmd(f, streams))
	return cmd
}

func newMaintenanceStatusCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "status [-o json]",
		Short:   "Show the database's size, the part in use, the quota and the alarm",
		Example: "  minictl maintenance status",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			body, err := maintenanceCall(cmd.Context(), f, "GET", maintenanceStatusPath, nil)
			if err != nil {
				return err
			}
			if output == "json" {
				_, err := fmt.Fprintln(streams.Out, string(body))
				return err
			}
			var st storage.SpaceStatus
			if err := json.Unmarshal(body, &st); err != nil {
				return fmt.Errorf("decoding the status: %w", err)
			}
			return printSpace(streams.Out, st)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format. One of: (json).")
	return cmd
}

func newMaintenanceCompactCmd(f *Factory, streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	keep := -1
	cmd := &cobra.Command{
		Use:   "compact [--keep-history=N]",
		Short: "Trim the watch history (if asked) and give the database file's free pages back",
		Long: "Compact the server's database online: writes wait while it runs (as during etcd's defrag),\n" +
			"reads go on. --keep-history=N first trims the watch history to the newest N events: watches\n" +
			"and lists from older resourceVersions then get 410 Expired and list again.",
		Example: "  minictl maintenance compact\n  minictl maintenance compact --keep-history=0",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := map[string]string{}
			if keep >= 0 {
				q["keepHistory"] = strconv.Itoa(keep)
			}
			body, err := maintenanceCall(cmd.Context(), f, "POST", maintenanceCompactPath, q)
			if err != nil {
				return err
			}
			if output == "json" {
				_, err := fmt.Fprintln(streams.Out, string(body))
				return err
			}
			var c storage.CompactResult
			if err := json.Unmarshal(body, &c); err != nil {
				return fmt.Errorf("decoding the compaction: %w", err)
			}
			fmt.Fprintf(streams.Out, "compacted in %s: file %s -> %s, %d history events trimmed\n",
				c.Duration.Round(time.Millisecond), bytesIEC(c.Before.FileBytes), bytesIEC(c.After.FileBytes), c.TrimmedEvents)
			return printSpace(streams.Out, c.After)
		},
	}
	cmd.Flags().IntVar(&keep, "keep-history", keep, "Trim the watch history to the newest N events first; -1 keeps it.")
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format. One of: (json).")
	return cmd
}

// maintenanceCall sends one request to a maintenance endpoint.
func maintenanceCall(ctx context.Context, f *Factory, verb, path string, query map[string]string) ([]byte, error) {
	c, err := f.RawClient()
	if err != nil {
		return nil, err
	}
	req := c.Verb(verb).AbsPath(path).SetHeader("Accept", acceptJSON)
	for k, v := range query {
		req = req.Param(k, v)
	}
	return doRaw(ctx, req)
}

// printSpace prints a space status as a table, like etcdctl endpoint status.
func printSpace(out io.Writer, st storage.SpaceStatus) error {
	quota, alarm := "none", "none"
	if st.QuotaBytes > 0 {
		quota = bytesIEC(st.QuotaBytes)
	}
	if st.Alarm != "" {
		alarm = st.Alarm + " (" + st.AlarmReason + ")"
	}
	w := printers.GetNewTabWriter(out)
	fmt.Fprintln(w, "DB SIZE\tIN USE\tQUOTA\tALARM\tREVISION\tHISTORY FROM")
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\n", bytesIEC(st.FileBytes), bytesIEC(st.InUseBytes), quota, alarm, st.Revision, st.HistoryOldest)
	return w.Flush()
}

// bytesIEC writes n bytes in KiB, MiB or GiB with one decimal.
func bytesIEC(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGT"[exp])
}
