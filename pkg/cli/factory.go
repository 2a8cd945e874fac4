package cli

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// DefaultServer is used when no kubeconfig and no --server name one.
const DefaultServer = "http://127.0.0.1:8080"

// Factory turns the global flags into clients. It is created once per
// process by NewRootCmd; every getter is safe to call repeatedly and
// returns the same (lazily built) client.
//
// Kubeconfig loading follows kubectl: --kubeconfig, else $KUBECONFIG (a
// path list, files merged), else ~/.kube/config; flags such as --server,
// --context, --namespace override what was loaded; with nothing at all the
// server is DefaultServer.
type Factory struct {
	// Kubeconfig is --kubeconfig.
	Kubeconfig string
	// Overrides holds the other global flags (--server, --context, ...).
	Overrides clientcmd.ConfigOverrides
	// Verbosity is -v; from 6 up every request is logged to ErrOut, as
	// kubectl logs them (in slog's text format rather than klog's).
	Verbosity int
	// ErrOut receives the request log; NewRootCmd sets it to stderr.
	ErrOut io.Writer

	once      sync.Once
	loader    clientcmd.ClientConfig
	mu        sync.Mutex
	config    *rest.Config
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
}

// NewFactory returns a Factory with no flags set.
func NewFactory() *Factory {
	return &Factory{Overrides: clientcmd.ConfigOverrides{
		ClusterDefaults: clientcmdapi.Cluster{Server: DefaultServer},
	}}
}

// AddFlags binds kubectl's global flags to f.
func (f *Factory) AddFlags(flags *pflag.FlagSet) {
	flags.StringVar(&f.Kubeconfig, clientcmd.RecommendedConfigPathFlag, "", "Path to the kubeconfig file to use for CLI requests.")
	names := clientcmd.RecommendedConfigOverrideFlags("")
	names.ClusterOverrideFlags.APIServer.ShortName = "s"
	clientcmd.BindOverrideFlags(&f.Overrides, flags, names)
	flags.IntVarP(&f.Verbosity, "v", "v", 0, "number for the log level verbosity")
}

// ClientConfig is the deferred-loading kubeconfig view of the flags; use it
// for config commands and for the raw merged kubeconfig.
func (f *Factory) ClientConfig() clientcmd.ClientConfig {
	f.once.Do(func() {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = f.Kubeconfig
		f.loader = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &f.Overrides)
	})
	return f.loader
}

// RESTConfig is the client configuration for the selected server.
func (f *Factory) RESTConfig() (*rest.Config, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.config != nil {
		return rest.CopyConfig(f.config), nil
	}
	c, err := f.ClientConfig().ClientConfig()
	if err != nil {
		return nil, err
	}
	c.QPS, c.Burst = 50, 100
	c.UserAgent = userAgent()
	if f.Verbosity >= 6 {
		c.WrapTransport = logRequests(f.ErrOut)
	}
	f.config = c
	return rest.CopyConfig(c), nil
}

// Namespace is the namespace to work in (--namespace, else the context's,
// else "default") and whether it was given explicitly.
func (f *Factory) Namespace() (string, bool, error) {
	return f.ClientConfig().Namespace()
}

// Clientset is a typed client for the built-in kinds.
func (f *Factory) Clientset() (kubernetes.Interface, error) {
	c, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(c)
}

// Dynamic is a client for any resource as unstructured objects.
func (f *Factory) Dynamic() (dynamic.Interface, error) {
	c, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	return dynamic.NewForConfig(c)
}

// RawClient is a REST client for absolute paths (AbsPath) that decodes
// error responses into API Status errors. get, scale and others use it to
// send exactly the requests (and Accept headers) kubectl sends.
func (f *Factory) RawClient() (rest.Interface, error) {
	c, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	c.APIPath = ""
	c.GroupVersion = nil
	c.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	return rest.UnversionedRESTClientFor(c)
}

// Discovery is a discovery client cached in memory for the process.
func (f *Factory) Discovery() (discovery.CachedDiscoveryInterface, error) {
	f.mu.Lock()
	d := f.discovery
	f.mu.Unlock()
	if d != nil {
		return d, nil
	}
	c, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.discovery == nil {
		f.discovery = memory.NewMemCacheClient(dc)
	}
	return f.discovery, nil
}

// RESTMapper maps kinds and resource names (plural, singular, short) to
// REST mappings, from discovery; it refreshes once when a name is unknown.
func (f *Factory) RESTMapper() (meta.RESTMapper, error) {
	d, err := f.Discovery()
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mapper == nil {
		deferred := restmapper.NewDeferredDiscoveryRESTMapper(d)
		// kubectl warns when a short name matches more than one resource
		// (ev: events and events.events.k8s.io).
		f.mapper = restmapper.NewShortcutExpander(deferred, d, func(msg string) {
			if f.ErrOut != nil {
				fmt.Fprintf(f.ErrOut, "Warning: %s\n", msg)
			}
		})
	}
	return f.mapper, nil
}

func userAgent() string {
	return fmt.Sprintf("minictl/%s", clientVersion)
}

// logRequests logs each request's method, URL, status and duration.
func logRequests(w io.Writer) func(http.RoundTripper) http.RoundTripper {
	if w == nil {
		w = io.Discard
	}
	log := slog.New(slog.NewTextHandler(w, nil))
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			start := time.Now()
			resp, err := rt.RoundTrip(req)
			attrs := []any{"verb", req.Method, "url", req.URL.String(), "accept", req.Header.Get("Accept"), "milliseconds", time.Since(start).Milliseconds()}
			if err != nil {
				log.Info("Request failed", append(attrs, "err", err)...)
				return resp, err
			}
			log.Info("Response", append(attrs, "status", resp.Status)...)
			return resp, err
		})
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
