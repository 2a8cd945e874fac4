package controllers

import (
	"net/http"
	"testing"

	"k8s.io/client-go/rest"
)

func TestKeepConnectionsRaisesTheIdlePoolAndKeepsTLS(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", BearerToken: "t",
		TLSClientConfig: rest.TLSClientConfig{Insecure: true, ServerName: "miniapi"}}
	if err := keepConnections(cfg); err != nil {
		t.Fatal(err)
	}
	tr, ok := cfg.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("Transport is %T, want *http.Transport", cfg.Transport)
	}
	if tr.MaxIdleConnsPerHost != maxIdleConns {
		t.Errorf("MaxIdleConnsPerHost = %d, want %d", tr.MaxIdleConnsPerHost, maxIdleConns)
	}
	if tr.TLSClientConfig == nil || !tr.TLSClientConfig.InsecureSkipVerify || tr.TLSClientConfig.ServerName != "miniapi" {
		t.Errorf("TLS settings not carried into the transport: %+v", tr.TLSClientConfig)
	}
	if cfg.TLSClientConfig.Insecure || cfg.BearerToken != "t" {
		t.Errorf("cfg after: TLS %+v (want moved out), token %q (want kept)", cfg.TLSClientConfig, cfg.BearerToken)
	}
	if _, err := rest.HTTPClientFor(cfg); err != nil {
		t.Errorf("client-go rejects the config: %v", err)
	}
}

func TestKeepConnectionsLeavesACallersTransport(t *testing.T) {
	own := &http.Transport{}
	cfg := &rest.Config{Host: "http://127.0.0.1:1", Transport: own}
	if err := keepConnections(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Transport != own {
		t.Error("a transport the caller set was replaced")
	}
}
