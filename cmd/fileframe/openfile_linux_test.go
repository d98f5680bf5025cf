package main

import (
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUploadRefusesWhatIsNotARegularFile: a named pipe without a writer is
// refused at once (its open blocked before, and Ctrl-C with it), and a
// file of /proc, which says it is empty, is not stored empty (the
// twenty-first outside attack), by remote upload and by file add.
func TestUploadRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"FILEFRAME_URL=http://127.0.0.1:1", "FILEFRAME_KEY=ffk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "HOME=" + t.TempDir()}
	data := t.TempDir()
	sock := filepath.Join(t.TempDir(), "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, c := range []struct{ path, want string }{
		{fifo, "is not a regular file"},
		{sock, "is not a regular file"},
		{"/proc/self/status", "says it is empty but is not"},
		{t.TempDir(), "is not a regular file"},
	} {
		for _, args := range [][]string{
			{"remote", "upload", c.path},
			{"file", "add", "--data", data, "--email", "a@example.com", c.path},
		} {
			r := remoteRun(t, env, args...) // killed after two minutes: a hang fails too
			if r.code != 1 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%q: exit %d, stderr %q; want exit 1, %q", args, r.code, r.stderr, c.want)
			}
		}
	}
}
