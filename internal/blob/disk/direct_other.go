//go:build !linux

package disk

import (
	"errors"
	"os"
)

// setDirect fails where O_DIRECT cannot be set on an open file: Put then
// writes through the page cache.
func setDirect(*os.File, bool) error { return errors.ErrUnsupported }
