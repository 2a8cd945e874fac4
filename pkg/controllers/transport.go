package controllers

import (
	"net/http"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// maxIdleConns is how many idle connections to the API server the
// controllers keep. client-go's default keeps 25; the controllers have
// more requests than that in flight under load (every write waits for an
// fsync), so each burst beyond 25 closed its connections afterwards and
// dialled new ones next time: a TCP handshake and a server goroutine per
// request, measured at about a tenth of the process's CPU.
const maxIdleConns = 256

// keepConnections gives cfg its own transport, with client-go's defaults
// but a larger idle pool. cfg's TLS settings move into the transport;
// authentication stays in cfg, which client-go wraps around it.
func keepConnections(cfg *rest.Config) error {
	if cfg.Transport != nil || cfg.WrapTransport != nil || cfg.Dial != nil {
		return nil // the caller chose its own transport
	}
	tlsConf, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return err
	}
	t := utilnet.SetTransportDefaults(&http.Transport{
		TLSClientConfig:     tlsConf,
		MaxIdleConnsPerHost: maxIdleConns,
	})
	cfg.Transport = t
	cfg.TLSClientConfig = rest.TLSClientConfig{}
	return nil
}
