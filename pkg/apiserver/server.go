package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/miniapi/miniapi/pkg/apiserver/authn"
	"github.com/miniapi/miniapi/pkg/apiserver/crd"
	"github.com/miniapi/miniapi/pkg/apiserver/discovery"
	"github.com/miniapi/miniapi/pkg/apiserver/openapi"
	"github.com/miniapi/miniapi/pkg/apiserver/registry"
	"github.com/miniapi/miniapi/pkg/apiserver/revcache"
	"github.com/miniapi/miniapi/pkg/journal"
	"github.com/miniapi/miniapi/pkg/storage"
)

// Config configures a Server.
type Config struct {
	// Store holds the objects. Required.
	Store storage.Store
	// Registry is the set of served resources; the built-in kinds when
	// nil.
	Registry *registry.Registry
	// Builtin configures the built-in kinds (the Service ranges) when
	// Registry is nil, and the objects Bootstrap creates (the
	// default/kubernetes Service's ClusterIP). Its Store is Store when
	// unset.
	Builtin registry.Options
	// Logger gets one line per request; slog.Default() when nil.
	Logger *slog.Logger
	// Metrics are served at /metrics; a fresh set on its own registry
	// when nil.
	Metrics *Metrics
	// Profiling serves /debug/pprof/.
	Profiling bool
	// Now is the clock for timestamps and Table ages; time.Now when nil.
	Now func() time.Time
	// Authenticator finds the user of each request's bearer token; a
	// request without a known token gets 401. nil: no tokens are asked
	// for and every request is authn.Unsecured (loopback servers only).
	Authenticator authn.Authenticator
	// Limits bound the requests served at once and how long each may
	// take; the zero value sets none.
	Limits Limits
	// Journal is the controllers' reconcile journal, served at
	// /miniapi/v1/journal; nil: that path says the journal is off.
	Journal *journal.Journal
	// DecodedCacheBytes bounds the cache of decoded objects (revcache) by
	// the stored bytes of what it holds, and the cache of labels by four
	// times as much of their memory: DefaultDecodedCacheBytes when 0, no
	// caches when negative.
	DecodedCacheBytes int
	// EventTTL (--event-ttl) deletes events this long after their last
	// write (eventttl.go); 0: events never expire.
	EventTTL time.Duration
}

// DefaultDecodedCacheBytes is the default bound of the cache of decoded
// objects: about 2,500 pods of 1.5 KiB stored, which take some 12 MiB
// decoded (about 3× their JSON). The cache of labels holds four times
// that, about 50,000 objects' labels: a list with a label selector reads
// every object of the collection in turn, and a scan longer than half a
// cache finds nothing in it (revcache evicts by generation).
const DefaultDecodedCacheBytes = 4 << 20

// Server is the HTTP API. It is an http.Handler.
type Server struct {
	store   storage.Store
	reg     *registry.Registry
	builtin registry.Options
	log     *slog.Logger
	metrics *Metrics
	now     func() time.Time
	authn   authn.Authenticator
	handler http.Handler
	// limits and inflight bound the requests being served (limits.go).
	limits   Limits
	inflight *inflight

	// ctx ends every open watch when the server shuts down.
	ctx    context.Context
	cancel context.CancelFunc
	// watches counts open watch streams so EndWatches can wait for them;
	// watchMu orders Add against the cancel in EndWatches.
	watches sync.WaitGroup
	watchMu sync.Mutex
	// wires shares each watch event's encoded bytes among the watchers
	// (revisions are unique within one store, so one cache per server).
	wires wireCache
	// fields keeps the field manager of each resource (managedFields).
	fields *fieldManagers
	// crds serves the custom resources of the stored CRDs (crds.go).
	crds *crd.Controller
	// onWatchEnd, when set (by tests, before serving), hears of every
	// ended watch stream.
	onWatchEnd func(watchEnd)
	// journal is the controllers' reconcile journal (journal.go); nil when off.
	journal *journal.Journal
	// decodedObjects keeps decoded objects by revision, shared among the
	// reads that need them decoded (stored.go).
	decodedObjects *revcache.Cache[runtime.Object]
	// eventTTL is Config.EventTTL.
	eventTTL time.Duration
	// labels keeps the labels of stored objects by revision, for label
	// selectors (storedlabels.go).
	labels *revcache.Cache[labels.Set]
}

// New builds the server and its routes.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("apiserver: Config.Store is required")
	}
	s := &Server{store: cfg.Store, reg: cfg.Registry, builtin: cfg.Builtin, log: cfg.Logger, metrics: cfg.Metrics, now: cfg.Now, authn: cfg.Authenticator,
		fields: newFieldManagers(), journal: cfg.Journal}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.builtin.Store == nil {
		s.builtin.Store = cfg.Store
	}
	if s.builtin.Logger == nil {
		s.builtin.Logger = s.log
	}
	if s.reg == nil {
		reg, err := registry.NewBuiltin(s.builtin)
		if err != nil {
			return nil, fmt.Errorf("apiserver: %w", err)
		}
		crds := crd.Resource()
		crds.AfterWrite = s.syncCRDsAfterWrite
		if err := reg.Add(crds); err != nil {
			return nil, fmt.Errorf("apiserver: %w", err)
		}
		s.reg = reg
	}
	if s.metrics == nil {
		s.metrics = NewMetrics(nil)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if cfg.DecodedCacheBytes == 0 {
		cfg.DecodedCacheBytes = DefaultDecodedCacheBytes
	}
	s.decodedObjects = revcache.New[runtime.Object](cfg.DecodedCacheBytes)
	s.labels = revcache.New[labels.Set](4 * cfg.DecodedCacheBytes)
	s.eventTTL = cfg.EventTTL
	s.metrics.watchRevision(cfg.Store)
	s.limits, s.inflight = cfg.Limits, newInflight(cfg.Limits, s.metrics)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.handler = s.middleware(s.limit(s.authenticate(s.routes(cfg.Profiling))))
	return s, nil
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// EndWatches ends every open watch stream cleanly and waits until their
// handlers have returned, so that http.Server.Shutdown does not wait for
// long-running requests. New watches end at once.
func (s *Server) EndWatches(ctx context.Context) error {
	s.watchMu.Lock()
	s.cancel()
	s.watchMu.Unlock()
	done := make(chan struct{})
	go func() { s.watches.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// routes maps every served path to its handler.
func (s *Server) routes(profiling bool) *mux.Router {
	r := mux.NewRouter()
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeError(w, errPathNotFound()) })
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeError(w, apierrors.NewMethodNotSupported(schema.GroupResource{}, req.Method))
	})

	for _, p := range []string{"/readyz", "/livez", "/healthz"} {
		r.Handle(p, http.HandlerFunc(healthz))
	}
	r.Handle("/version", http.HandlerFunc(s.version))
	r.Handle("/metrics", s.metrics.Handler())
	if profiling {
		r.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		r.HandleFunc("/debug/pprof/profile", pprof.Profile)
		r.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		r.HandleFunc("/debug/pprof/trace", pprof.Trace)
		r.PathPrefix("/debug/pprof/").HandlerFunc(pprof.Index)
	}

	// The OpenAPI documents are built on the first request for them, not
	// at start: building them allocates some 35 MiB that a server nobody
	// asks for its schema would keep in its idle footprint.
	r.PathPrefix("/openapi/").Handler(newDerivedHandler(s.reg, openapi.NewHandler))

	disc := newDerivedHandler(s.reg, discovery.NewHandler)
	for _, p := range []string{"/api", "/api/v1", "/apis", "/apis/{group}", "/apis/{group}/{version}"} {
		r.Handle(p, disc).Methods(http.MethodGet, http.MethodHead)
	}

	r.HandleFunc(historyPath, s.objectHistory).Methods(http.MethodGet, http.MethodHead)
	s.addUIRoutes(r)
	r.HandleFunc(journalPath, s.serveJournal).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(maintenanceStatusPath, s.serveMaintenanceStatus).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(maintenanceCompactPath, s.serveMaintenanceCompact).Methods(http.MethodPost)

	r.PathPrefix("/apis/" + metricsGroup).HandlerFunc(noMetrics)
	r.PathPrefix("/api/v1/").HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.serveResource(w, req, "", "v1", splitPath(req.URL.Path)[2:])
	})
	r.PathPrefix("/apis/{group}/{version}/").HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		v := mux.Vars(req)
		s.serveResource(w, req, v["group"], v["version"], splitPath(req.URL.Path)[3:])
	})
	return r
}

// derivedHandler serves documents derived from the registry (discovery,
// OpenAPI), built when first asked for and built again whenever the
// registry has changed since.
type derivedHandler struct {
	reg   *registry.Registry
	build func([]*registry.Resource) (http.Handler, error)

	mu  sync.Mutex // held while building, so concurrent requests wait for one build
	gen uint64     // the registry generation h was built from
	h   http.Handler
}

func newDerivedHandler(reg *registry.Registry, build func([]*registry.Resource) (http.Handler, error)) *derivedHandler {
	return &derivedHandler{reg: reg, build: build}
}

// current is the handler for the registry as it is now.
func (d *derivedHandler) current() (http.Handler, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	gen := d.reg.Generation()
	if d.h != nil && d.gen == gen {
		return d.h, nil
	}
	h, err := d.build(d.reg.All())
	if err != nil {
		return nil, err
	}
	d.h, d.gen = h, gen
	return h, nil
}

func (d *derivedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, err := d.current()
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	h.ServeHTTP(w, r)
}
