//go:build !linux

package web

import "net/http"

// cork does nothing where TCP_CORK is missing: the writes of an answer
// leave as they come.
func cork(http.ResponseWriter, *http.Request, int64) (uncork func()) { return func() {} }
