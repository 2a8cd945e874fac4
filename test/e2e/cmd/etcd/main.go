// Command etcd is the real etcd server, built from go.etcd.io/etcd/server/v3
// at the version pinned in this module (etcdmain.Main is etcd's own
// command), so the end-to-end tests can run an etcd cluster of separate
// processes and kill its members as a crash would.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
