package service

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// testService returns a Service on a fresh SQLite store and disk blobs,
// with quotas, and an account of the Free plan.
func testService(t *testing.T, q fileframe.Quota) (*Service, fileframe.Store, fileframe.Account) {
	t.Helper()
	dir := t.TempDir()
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "fileframe.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	blobs, err := disk.Open(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Store: store, Blobs: blobs, Quotas: map[fileframe.Plan]fileframe.Quota{fileframe.PlanFree: q}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := store.CreateAccount(context.Background(), fileframe.Account{Email: "a@example.com", Plan: fileframe.PlanFree})
	if err != nil {
		t.Fatal(err)
	}
	return s, store, a
}

// countingStore counts the reservations written, to show that a file of
// unknown size costs a few writes, not one per read.
type countingStore struct {
	fileframe.Store
	mu       sync.Mutex
	reserves []int64
}

func (c *countingStore) Reserve(ctx context.Context, r fileframe.Reservation, q fileframe.Quota, now time.Time) (int64, error) {
	c.mu.Lock()
	c.reserves = append(c.reserves, r.Bytes)
	c.mu.Unlock()
	return c.Store.Reserve(ctx, r, q, now)
}

func TestAddFile(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		quota    fileframe.Quota
		used     int64 // bytes of a file already stored
		size     int   // bytes sent
		announce bool  // whether the size is announced
		wantCode string
		wantMsg  string
	}{
		{"fits, announced", fileframe.Quota{Storage: 1000, File: 600}, 0, 600, true, "", ""},
		{"fits, unknown size", fileframe.Quota{Storage: 1000, File: 600}, 0, 600, false, "", ""},
		{"ends exactly at the storage left, unknown size", fileframe.Quota{Storage: 1000}, 400, 600, false, "", ""},
		{"ends exactly at the largest file, unknown size", fileframe.Quota{File: 600}, 0, 600, false, "", ""},
		{"empty file in a full account", fileframe.Quota{Storage: 1000}, 1000, 0, false, "", ""},
		{"file too large, announced", fileframe.Quota{Storage: 1000, File: 600}, 0, 601, true, fileframe.CodeFileTooLarge, "This file is 601 B; the Free plan takes files of up to 600 B."},
		{"file too large, unknown size", fileframe.Quota{Storage: 1000, File: 600}, 0, 601, false, fileframe.CodeFileTooLarge, "larger than 600 B, the largest the Free plan takes"},
		{"storage left, announced", fileframe.Quota{Storage: 1000}, 900, 101, true, fileframe.CodeQuotaExceeded, "This file needs 101 B, but only 100 B of the Free plan's 1000 B of storage is left."},
		{"storage left, unknown size", fileframe.Quota{Storage: 1000}, 900, 101, false, fileframe.CodeQuotaExceeded, "larger than the 100 B left of the Free plan's 1000 B of storage"},
		{"storage full, unknown size", fileframe.Quota{Storage: 1000}, 1000, 1, false, fileframe.CodeQuotaExceeded, "larger than the 0 B left"},
		{"unlimited", fileframe.Quota{}, 0, 3 << 20, false, "", ""},
		{"many steps of unknown size", fileframe.Quota{Storage: 1 << 30}, 0, 5<<20 + 7, false, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, store, a := testService(t, tt.quota)
			counting := &countingStore{Store: store}
			s.store = counting
			if tt.used > 0 {
				if _, err := store.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: "old", Size: tt.used, BlobKey: "k"}); err != nil {
					t.Fatal(err)
				}
			}
			content := bytes.Repeat([]byte("x"), tt.size)
			size := int64(-1)
			if tt.announce {
				size = int64(tt.size)
			}
			// One byte per read at first, then the rest: the reader must
			// not need reads of any particular size.
			body := io.MultiReader(iotest.OneByteReader(bytes.NewReader(content[:min(10, len(content))])), bytes.NewReader(content[min(10, len(content)):]))
			f, err := s.AddFile(ctx, NewFile{Account: a, Name: "new.txt", Size: size, Body: body})
			if got := fileframe.ErrorCode(err); got != tt.wantCode {
				t.Fatalf("AddFile: got code %q (%v), want %q", got, err, tt.wantCode)
			}
			if tt.wantMsg != "" && !strings.Contains(fileframe.ErrorMessage(err), tt.wantMsg) {
				t.Errorf("message: got %q, want it to say %q", fileframe.ErrorMessage(err), tt.wantMsg)
			}
			files, _ := store.FilesByAccount(ctx, a.ID)
			var sum int64
			for _, f := range files {
				sum += f.Size
			}
			if tt.quota.Storage > 0 && sum > tt.quota.Storage {
				t.Errorf("stored %d bytes, over the quota of %d", sum, tt.quota.Storage)
			}
			if err == nil && (f.Size != int64(tt.size) || f.ContentType != "text/plain; charset=utf-8") {
				t.Errorf("file: got %+v", f)
			}
			// Nothing stays reserved, whatever happened: all the room not
			// taken by files is free again.
			if tt.quota.Storage > 0 {
				if _, err := store.Reserve(ctx, fileframe.Reservation{ID: "probe", AccountID: a.ID, Bytes: tt.quota.Storage - sum, ExpiresAt: time.Now().Add(time.Hour)}, tt.quota, time.Now()); err != nil {
					t.Errorf("reserving all the room left after the upload: %v", err)
				}
			}
			if len(counting.reserves) > 12 {
				t.Errorf("%d reservations written for %d bytes: %v", len(counting.reserves), tt.size, counting.reserves)
			}
			if tt.quota.Storage == 0 && len(counting.reserves) != 0 {
				t.Errorf("unlimited storage: %d reservations written, want none", len(counting.reserves))
			}
		})
	}
}

// TestAddFileNames: every way a file comes in refuses a name that a
// download's Content-Disposition could not carry (the CLI let CR/LF in
// before it called AddFile).
func TestAddFileNames(t *testing.T) {
	s, _, a := testService(t, fileframe.Quota{})
	for _, name := range []string{"", "a\r\nSet-Cookie: x=y", "tab\there", "nul\x00", strings.Repeat("x", 256), "\xff.txt"} {
		_, err := s.AddFile(context.Background(), NewFile{Account: a, Name: name, Size: 1, Body: strings.NewReader("x")})
		if fileframe.ErrorCode(err) != fileframe.CodeInvalidField {
			t.Errorf("AddFile named %q: got %v, want invalid_field", name, err)
		}
		if err := s.ReserveUpload(context.Background(), a, "u1", name, 1); fileframe.ErrorCode(err) != fileframe.CodeInvalidField {
			t.Errorf("ReserveUpload named %q: got %v, want invalid_field", name, err)
		}
	}
}

// TestAddFileAnnouncedSizeMismatch: bytes that differ from the announced
// size are not stored as a file.
func TestAddFileAnnouncedSizeMismatch(t *testing.T) {
	s, store, a := testService(t, fileframe.Quota{Storage: 1000})
	if _, err := s.AddFile(context.Background(), NewFile{Account: a, Name: "a", Size: 10, Body: strings.NewReader("short")}); err == nil {
		t.Error("AddFile of 5 bytes announced as 10: stored")
	}
	if files, _ := store.FilesByAccount(context.Background(), a.ID); len(files) != 0 {
		t.Errorf("files: got %d, want none", len(files))
	}
}
