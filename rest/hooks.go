package rest

import (
	"net/http"

	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/internal/timing"
)

// Podwatch's tools reach the client through package resthook, which
// cannot name rest's types: this is rest's side of it.
func init() {
	resthook.Install(resthook.Impl{
		On:        func(cfg any) *resthook.Hooks { return &cfg.(*Config).hooks },
		ClockOf:   func(c any) timing.Clock { return c.(*Client).clock },
		Forwarder: func(c any) http.RoundTripper { return forwarder{c.(*Client)} },
	})
}
