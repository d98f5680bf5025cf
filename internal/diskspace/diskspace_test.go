package diskspace

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func TestReserve(t *testing.T) {
	for _, tt := range []struct{ total, want uint64 }{
		{0, 1 << 20},
		{10 << 20, 1 << 20},   // a twentieth is under the floor
		{32 << 20, 1677721},   // a twentieth of a 32 MiB test disk
		{100 << 30, 64 << 20}, // capped
		{1 << 40, 64 << 20},
	} {
		if got := Reserve(tt.total); got != tt.want {
			t.Errorf("Reserve(%d) = %d, want %d", tt.total, got, tt.want)
		}
	}
}

func TestWrap(t *testing.T) {
	full := Wrap(fmt.Errorf("write: %w", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}))
	if got := fileframe.ErrorCode(full); got != fileframe.CodeStorageFull {
		t.Errorf("ENOSPC: code %q, want %q", got, fileframe.CodeStorageFull)
	}
	if !errors.Is(full, syscall.ENOSPC) {
		t.Errorf("the system's error is lost from the chain: %v", full)
	}
	if got := fileframe.ErrorCode(Wrap(syscall.EDQUOT)); got != fileframe.CodeStorageFull {
		t.Errorf("EDQUOT: code %q", got)
	}
	other := errors.New("permission denied")
	if Wrap(other) != other || Wrap(nil) != nil {
		t.Errorf("Wrap changed an error that is not about space")
	}
	// The test machine's temp directory has room.
	if err := Check(t.TempDir()); err != nil {
		t.Errorf("Check of the temp directory: %v", err)
	}
}
