package s3

import (
	"strings"
	"testing"
	"time"
)

func TestCleanUploads(t *testing.T) {
	s := newTestStore(t, nil)
	blob, err := s.Put(t.Context(), strings.NewReader("a finished file"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.UploadsPrefix(), s.prefix+"uploads/"; got != want {
		t.Errorf("UploadsPrefix = %q, want %q", got, want)
	}
	for _, name := range []string{"uploads/a.info", "uploads/a.part", "tmp/put"} {
		putObject(t, s, name, "unfinished")
	}
	if n, err := s.CleanUploads(t.Context(), 24*time.Hour); err != nil || n != 0 {
		t.Fatalf("CleanUploads of fresh uploads = %d, %v; want 0, nil", n, err)
	}
	s.now = func() time.Time { return time.Now().Add(25 * time.Hour) }
	if n, err := s.CleanUploads(t.Context(), 24*time.Hour); err != nil || n != 2 {
		t.Fatalf("CleanUploads a day later = %d, %v; want 2, nil", n, err)
	}
	if got := listObjects(t, s, "uploads/"); len(got) != 0 {
		t.Errorf("uploads/ after CleanUploads = %v, want none", got)
	}
	if got := listObjects(t, s, "tmp/"); len(got) != 1 {
		t.Errorf("CleanUploads touched tmp/: %v", got)
	}
	if _, err := s.Stat(t.Context(), blob.Key); err != nil {
		t.Errorf("Stat of a blob after CleanUploads: %v", err)
	}
}
