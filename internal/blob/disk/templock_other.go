//go:build !unix

package disk

import "os"

// lockTemp does nothing where flock(2) is missing: temp files are then
// removed by age alone (staleTempAge).
func lockTemp(*os.File) error { return nil }

// writerGone never reports a writer gone where locks cannot tell.
func writerGone(string) bool { return false }
