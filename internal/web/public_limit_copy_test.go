package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

// A limited download whose blob read stops because the request ended (a
// visitor cancelling a download from S3, whose reads follow the request's
// context) is not the server's error; a blob that fails to read otherwise
// is.
func TestLimitedCopyReadFailures(t *testing.T) {
	for _, tt := range []struct {
		err   error
		error bool
	}{
		{context.Canceled, false},
		{fmt.Errorf("s3: read: %w", context.Canceled), false},
		{errors.New("s3: read: connection reset by the S3 server"), true},
		{context.DeadlineExceeded, true},
	} {
		var logs bytes.Buffer
		tr := &limitedTransfer{log: slog.New(slog.NewJSONHandler(&logs, nil))}
		if tr.copy(httptest.NewRecorder(), iotest.ErrReader(tt.err), 10) {
			t.Errorf("%v: the copy reported complete", tt.err)
		}
		if got := strings.Contains(logs.String(), `"level":"ERROR"`); got != tt.error {
			t.Errorf("%v: logged an error: %t, want %t\n%s", tt.err, got, tt.error, logs.String())
		}
	}
}
