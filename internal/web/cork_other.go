//go:build !linux

package web

import (
	"net"
	"net/http"
)

// corker is empty where TCP_CORK is missing: the writes of an answer leave
// as they come.
type corker struct{}

func newCorker(net.Conn) *corker { return nil }

func cork(*http.Request, int64) *corker { return nil }

func uncork(http.ResponseWriter, *corker) {}
