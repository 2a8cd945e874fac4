package main

import (
	"testing"

	"github.com/spf13/pflag"
)

// TestLeaderElectDefault: --leader-elect defaults to true as the contract
// says, but only takes effect with --etcd-servers unless given.
func TestLeaderElectDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--etcd-servers=http://127.0.0.1:2379"}, true},
		{[]string{"--etcd-servers=http://127.0.0.1:2379", "--leader-elect=false"}, false},
		{[]string{"--leader-elect"}, true},
		{[]string{"--leader-elect=true"}, true},
	} {
		f := pflag.NewFlagSet("miniapi", pflag.ContinueOnError)
		var elect bool
		var etcd string
		f.BoolVar(&elect, "leader-elect", true, "")
		f.StringVar(&etcd, "etcd-servers", "", "")
		if err := f.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := leaderElect(f, elect); got != tc.want {
			t.Errorf("%v: leader election %v, want %v", tc.args, got, tc.want)
		}
	}
}
