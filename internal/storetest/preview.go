package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// thumbKey is the blob key of a thumbnail in the preview tests.
const thumbKey = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"

// testPreviews is the conformance suite of PreviewStore.
func testPreviews(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	at := ms(time.Now().UTC())

	t.Run("a preview is stored once, the first one wins, and keeps its thumbnail in use", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		if _, err := s.Preview(t.Context(), f.BlobKey); !fileframe.IsNotFound(err) {
			t.Fatalf("Preview before any: got %v, want ENOTFOUND", err)
		}
		if used, err := s.BlobInUse(t.Context(), thumbKey); err != nil || used {
			t.Fatalf("BlobInUse of the thumbnail before: %v, %v", used, err)
		}
		first := fileframe.Preview{BlobKey: f.BlobKey, Kind: fileframe.PreviewImage, ThumbKey: thumbKey, Width: 320, Height: 200, CreatedAt: at}
		// Instances that made the thumbnail at once: one row, everyone
		// gets it.
		var wg sync.WaitGroup
		got := make([]fileframe.Preview, 8)
		errs := make([]error, 8)
		for i := range got {
			wg.Go(func() {
				p := first
				if i > 0 {
					p.Width = 100 + i
				}
				got[i], errs[i] = s.PutPreview(t.Context(), p)
			})
		}
		wg.Wait()
		for i := range got {
			if errs[i] != nil || got[i] != got[0] {
				t.Errorf("PutPreview %d: %+v, %v; want %+v like the others", i, got[i], errs[i], got[0])
			}
		}
		stored, err := s.Preview(t.Context(), f.BlobKey)
		if err != nil || stored != got[0] {
			t.Errorf("Preview: %+v, %v; want %+v", stored, err, got[0])
		}
		if used, err := s.BlobInUse(t.Context(), thumbKey); err != nil || !used {
			t.Errorf("BlobInUse of the thumbnail: %v, %v; want true", used, err)
		}
		if used, err := s.BlobInUse(t.Context(), f.BlobKey); err != nil || !used {
			t.Errorf("BlobInUse of the file's blob: %v, %v; want true", used, err)
		}
		deleted, err := s.DeletePreview(t.Context(), f.BlobKey)
		if err != nil || deleted != got[0] {
			t.Errorf("DeletePreview: %+v, %v; want %+v", deleted, err, got[0])
		}
		if used, err := s.BlobInUse(t.Context(), thumbKey); err != nil || used {
			t.Errorf("BlobInUse of the thumbnail after DeletePreview: %v, %v; want false", used, err)
		}
		if _, err := s.DeletePreview(t.Context(), f.BlobKey); !fileframe.IsNotFound(err) {
			t.Errorf("DeletePreview again: %v, want ENOTFOUND", err)
		}
	})

	t.Run("a preview that no thumbnail could be made for is kept too", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		p := fileframe.Preview{BlobKey: f.BlobKey, Kind: fileframe.PreviewImage, CreatedAt: at}
		got, err := s.PutPreview(t.Context(), p)
		if err != nil || got != p {
			t.Fatalf("PutPreview: %+v, %v; want %+v", got, err, p)
		}
		if used, err := s.BlobInUse(t.Context(), ""); err != nil || used {
			t.Errorf("BlobInUse(\"\"): %v, %v; want false", used, err)
		}
	})

	t.Run("no preview for bytes no file uses, nor an invalid one", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		_, err := s.PutPreview(t.Context(), fileframe.Preview{BlobKey: thumbKey, Kind: fileframe.PreviewImage, ThumbKey: f.BlobKey, Width: 1, Height: 1})
		wantCode(t, "PutPreview of unused bytes", err, fileframe.ENOTFOUND)
		for name, p := range map[string]fileframe.Preview{
			"kind":      {BlobKey: f.BlobKey, Kind: "video"},
			"blob key":  {BlobKey: "nope", Kind: fileframe.PreviewImage},
			"thumb key": {BlobKey: f.BlobKey, Kind: fileframe.PreviewImage, ThumbKey: "x", Width: 1, Height: 1},
			"no size":   {BlobKey: f.BlobKey, Kind: fileframe.PreviewImage, ThumbKey: thumbKey},
		} {
			_, err := s.PutPreview(t.Context(), p)
			wantCode(t, "PutPreview with a bad "+name, err, fileframe.EINVALID)
		}
	})
}
