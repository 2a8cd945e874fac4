package apiserver

import (
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/debug"

	"k8s.io/apimachinery/pkg/version"

	"github.com/miniapi/miniapi/pkg/apiserver/negotiation"
)

// healthz answers /readyz, /livez and /healthz: once the server serves
// requests its store is open, so it is ready.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte("ok"))
}

// Version is the Kubernetes version miniapi speaks, in /version's shape:
// kubectl compares it with its own to warn about skew.
var Version = version.Info{
	Major: "1", Minor: "37",
	EmulationMajor: "1", EmulationMinor: "37",
	MinCompatibilityMajor: "1", MinCompatibilityMinor: "36",
	GitVersion:   "v1.37.2",
	GitCommit:    "miniapi",
	GitTreeState: "clean",
}

func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	info := Version
	info.GoVersion = runtime.Version()
	info.Compiler = runtime.Compiler
	info.Platform = runtime.GOOS + "/" + runtime.GOARCH
	info.BuildDate = "1970-01-01T00:00:00Z"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.time":
				info.BuildDate = kv.Value
			case "vcs.revision":
				info.GitCommit = kv.Value
			}
		}
	}
	b, _ := json.Marshal(info)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(finishJSON(output{pretty: negotiation.Pretty(r)}, b))
}
