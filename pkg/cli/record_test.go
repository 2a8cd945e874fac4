package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestChangeCause(t *testing.T) {
	root := &cobra.Command{Use: "minictl"}
	root.PersistentFlags().StringP("namespace", "n", "", "")
	cmd := &cobra.Command{Use: "image", RunE: func(*cobra.Command, []string) error { return nil }}
	cmd.Flags().Bool("record", false, "")
	cmd.Flags().String("token", "", "")
	_ = cmd.Flags().SetAnnotation("token", "classified", []string{"true"})
	set := &cobra.Command{Use: "set"}
	set.AddCommand(cmd)
	root.AddCommand(set)
	argv := []string{"/usr/local/bin/minictl", "set", "image", "-n", "demo", "deploy/web", "--record", "--token=secret", "web=nginx:2"}
	root.SetArgs(argv[1:])
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	want := "minictl set image deploy/web web=nginx:2 --namespace=demo --record=true --token=CLASSIFIED"
	if got := changeCause(cmd, argv); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
