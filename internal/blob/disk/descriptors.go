package disk

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// descriptorWait is how long an open or create that fails because the
// process (EMFILE) or the system (ENFILE) has no file descriptor left waits
// for one to be freed before it gives up with a busy error.
const descriptorWait = 2 * time.Second

// errNoDescriptors is what an operation that found no free descriptor in
// descriptorWait returns: busy (503 with Retry-After), not a fault. The
// descriptors come back as the requests holding them finish.
var errNoDescriptors = fileframe.Errorf(fileframe.CodeBusy,
	"The server has as many files and connections open as it may; try again in a few seconds.")

// outOfDescriptors reports whether err says that no file descriptor was
// free.
func outOfDescriptors(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// withDescriptor runs op, and while it fails for want of a file descriptor
// runs it again, backing off from a millisecond up to 100 ms, for up to
// descriptorWait or until ctx is done: backpressure instead of an error
// when connections have taken every descriptor for a moment.
func withDescriptor[T any](ctx context.Context, op func() (T, error)) (T, error) {
	v, err := op()
	if !outOfDescriptors(err) {
		return v, err
	}
	deadline := time.Now().Add(descriptorWait)
	for pause := time.Millisecond; outOfDescriptors(err); pause = min(2*pause, 100*time.Millisecond) {
		if time.Now().After(deadline) {
			return v, errNoDescriptors
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, ctx.Err()
		case <-t.C:
		}
		v, err = op()
	}
	return v, err
}
