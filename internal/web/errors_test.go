package web

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestFaultLevel: work beside an answer that fails because the database or
// the blob store is out of reach (or busy) is a warning, wrapped however
// deep; anything else, a code's fault, is an error (the eighteenth attack,
// row 661: outages logged ERROR lines).
func TestFaultLevel(t *testing.T) {
	for _, c := range []struct {
		err  error
		want slog.Level
	}{
		{fmt.Errorf("s3: get: %w", fileframe.Errorf(fileframe.CodeUnavailable, "out of reach")), slog.LevelWarn},
		{fmt.Errorf("finishing: %w", fmt.Errorf("postgres: %w", fileframe.Errorf(fileframe.CodeBusy, "busy"))), slog.LevelWarn},
		{errors.New("a nil map"), slog.LevelError},
		{fileframe.Errorf(fileframe.ENOTFOUND, "gone"), slog.LevelError},
	} {
		if got := faultLevel(c.err); got != c.want {
			t.Errorf("faultLevel(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
