//go:build !linux && !darwin

package main

import "os"

// changeStamp is empty where the system keeps no change time a user
// cannot set: the sampled content (contentSample) still tells most
// changes.
func changeStamp(os.FileInfo) string { return "" }
