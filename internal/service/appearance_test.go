package service

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestMeasureImages: images of appearances stored before sizes were kept
// are measured in the blob store, and then count in the storage quota; a
// missing blob counts 0.
func TestMeasureImages(t *testing.T) {
	ctx := context.Background()
	s, store, a := testService(t, fileframe.Quota{Storage: 10_000})
	logo, err := s.blobs.Put(ctx, bytes.NewReader(bytes.Repeat([]byte("l"), 4_000)))
	if err != nil {
		t.Fatal(err)
	}
	old := fileframe.Appearance{Template: "t", LogoKey: logo.Key, LogoBytes: fileframe.UnmeasuredImage,
		Background: strings.Repeat("0", 64), BackgroundBytes: fileframe.UnmeasuredImage}
	if err := store.SetAccountAppearance(ctx, a.ID, old, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	// Unmeasured, the images count nothing: 10,000 bytes fit.
	if err := s.ReserveUpload(ctx, a, "probe", "p.bin", 10_000); err != nil {
		t.Fatalf("before measuring: %v", err)
	}
	s.ReleaseUpload(ctx, "probe")
	n, err := s.MeasureImages(ctx)
	if err != nil || n != 2 {
		t.Fatalf("MeasureImages: %d, %v; want 2 images", n, err)
	}
	got, _ := store.AccountAppearance(ctx, a.ID)
	if got.LogoBytes != 4_000 || got.BackgroundBytes != 0 {
		t.Errorf("after measuring: %+v, want the logo's 4,000 bytes and 0 for the missing background", got)
	}
	err = s.ReserveUpload(ctx, a, "probe", "p.bin", 6_001)
	if fileframe.ErrorCode(err) != fileframe.CodeQuotaExceeded {
		t.Errorf("6,001 bytes beside a measured logo of 4,000 in 10,000: got %v, want quota_exceeded", err)
	}
	if n, err := s.MeasureImages(ctx); err != nil || n != 0 {
		t.Errorf("MeasureImages again: %d, %v; want nothing left", n, err)
	}
}

// TestQuotaMessages: the quota's refusals say what is needed and left, in
// bytes when rounded sizes would look equal, and the files a plan keeps.
func TestQuotaMessages(t *testing.T) {
	msg := fileframe.ErrorMessage(quotaError(fileframe.PlanFree, fileframe.Quota{Storage: 1_000_000}, 100_000, 900_070))
	if !strings.Contains(msg, "needs 100,000 bytes, but only 99,930 bytes") {
		t.Errorf("sizes that round alike: %q", msg)
	}
	msg = fileframe.ErrorMessage(quotaError(fileframe.PlanFree, fileframe.Quota{Storage: 1 << 30}, 5<<20, 1<<30-(1<<20)))
	if !strings.Contains(msg, "needs 5.0 MiB, but only 1.0 MiB") {
		t.Errorf("sizes apart: %q", msg)
	}
	s, _, a := testService(t, fileframe.Quota{Files: 1})
	if _, err := s.AddFile(context.Background(), NewFile{Account: a, Name: "a.txt", Size: 1, Body: strings.NewReader("a")}); err != nil {
		t.Fatal(err)
	}
	_, err := s.AddFile(context.Background(), NewFile{Account: a, Name: "b.txt", Size: 1, Body: strings.NewReader("b")})
	if fileframe.ErrorCode(err) != fileframe.CodeFileCountExceeded || !strings.Contains(fileframe.ErrorMessage(err), "The Free plan keeps up to 1 file,") {
		t.Errorf("a second file on a plan of one: %v", err)
	}
}
