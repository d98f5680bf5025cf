//go:build !unix

package main

import "log/slog"

// logDescriptorLimit does nothing where descriptors have no such limit.
func logDescriptorLimit(*slog.Logger) {}
