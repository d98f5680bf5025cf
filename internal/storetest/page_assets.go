package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// assetSum is a blob key of a kept page asset.
const assetSum = "5d41402abc4b2a76b9719d911017c592aabbccddeeff00112233445566778899"

// testAssets is the conformance suite of what revisions keep of their
// remote resources (PageAsset) and the HTML they are served as.
func testAssets(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	at := ms(time.Now().UTC())
	kept := fileframe.PageAsset{URL: "https://cdn.example/a.png", Kind: fileframe.AssetImage, SHA256: assetSum,
		Type: "image/png", Ext: "png", Size: 68, FetchedAt: at}
	missing := fileframe.PageAsset{URL: "https://down.example/font.woff2", Kind: fileframe.AssetFont,
		Problem: "no answer from down.example", FetchedAt: at}
	served := []byte(`<!doctype html><img src="/a/` + assetSum + `.png">`)

	t.Run("SavePage keeps a revision's assets in order and the HTML it is served as", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		html := pageHTML(1, 100)
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: html, Served: served,
			Assets: []fileframe.PageAsset{kept, missing}, At: at}); err != nil {
			t.Fatal(err)
		}
		got, err := s.RevisionAssets(t.Context(), f.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := []fileframe.PageAsset{kept, missing}; !slices.EqualFunc(got, want, assetEqual) {
			t.Errorf("RevisionAssets got %+v, want %+v", got, want)
		}
		r := revisionOf(t, s, f.ID, 1)
		if string(r.HTML) != string(html) || string(r.Served) != string(served) || r.ServedSHA256 != sha(served) {
			t.Errorf("Revision: HTML %d bytes, Served %q (%s), want the posted HTML and %q (%s)", len(r.HTML), r.Served, r.ServedSHA256, served, sha(served))
		}
		a, err := s.Asset(t.Context(), assetSum)
		if err != nil || !assetEqual(a, kept) {
			t.Errorf("Asset got %+v, %v, want %+v", a, err, kept)
		}
		inUse, err := s.BlobInUse(t.Context(), assetSum)
		if err != nil || !inUse {
			t.Errorf("BlobInUse of a kept asset got %v, %v, want true", inUse, err)
		}
	})

	t.Run("a revision without remote resources is served as posted", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		r := revisionOf(t, s, f.ID, 1)
		if r.Served != nil || r.ServedSHA256 != "" {
			t.Errorf("Served got %q (%q), want nil", r.Served, r.ServedSHA256)
		}
		got, err := s.RevisionAssets(t.Context(), f.ID, 1)
		if err != nil || len(got) != 0 {
			t.Errorf("RevisionAssets got %v, %v, want none", got, err)
		}
	})

	t.Run("SetRevisionAssets replaces them, and the same HTML again replaces the latest's", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		html := pageHTML(1, 100)
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: html,
			Assets: []fileframe.PageAsset{missing}, At: at}); err != nil {
			t.Fatal(err)
		}
		retried := missing
		retried.SHA256, retried.Type, retried.Ext, retried.Size, retried.Problem = assetSum, "font/woff2", "woff2", 900, ""
		if err := s.SetRevisionAssets(t.Context(), f.ID, 1, served, []fileframe.PageAsset{retried}, 0); err != nil {
			t.Fatal(err)
		}
		got, _ := s.RevisionAssets(t.Context(), f.ID, 1)
		if !slices.EqualFunc(got, []fileframe.PageAsset{retried}, assetEqual) {
			t.Errorf("after SetRevisionAssets got %+v, want %+v", got, retried)
		}
		if r := revisionOf(t, s, f.ID, 1); string(r.Served) != string(served) {
			t.Errorf("Served got %q, want %q", r.Served, served)
		}
		// The same HTML posted again: no new revision, its assets replaced.
		p, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: html, Assets: []fileframe.PageAsset{kept}, At: at})
		if err != nil || !p.SameAsLatest || p.LatestRevision != 1 {
			t.Fatalf("SavePage of the same HTML got %+v, %v", p, err)
		}
		got, _ = s.RevisionAssets(t.Context(), f.ID, 1)
		if !slices.EqualFunc(got, []fileframe.PageAsset{kept}, assetEqual) {
			t.Errorf("after the same HTML got %+v, want %+v", got, kept)
		}
		if r := revisionOf(t, s, f.ID, 1); r.Served != nil {
			t.Errorf("Served got %q, want nil (none given)", r.Served)
		}
	})

	t.Run("assets of unknown revisions are ENOTFOUND, and go with their revision", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		_, err := s.RevisionAssets(t.Context(), f.ID, 1)
		wantCode(t, "RevisionAssets of a file without a page", err, fileframe.ENOTFOUND)
		err = s.SetRevisionAssets(t.Context(), f.ID, 3, nil, nil, 0)
		wantCode(t, "SetRevisionAssets of an unknown revision", err, fileframe.ENOTFOUND)
		_, err = s.Asset(t.Context(), assetSum)
		wantCode(t, "Asset that no revision keeps", err, fileframe.ENOTFOUND)
		_, err = s.Asset(t.Context(), "../etc/passwd")
		wantCode(t, "Asset of a bad key", err, fileframe.ENOTFOUND)

		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(1, 100), Served: served,
			Assets: []fileframe.PageAsset{kept}, At: at}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatal(err)
		}
		_, err = s.Asset(t.Context(), assetSum)
		wantCode(t, "Asset of a deleted file's page", err, fileframe.ENOTFOUND)
		if inUse, err := s.BlobInUse(t.Context(), assetSum); err != nil || inUse {
			t.Errorf("BlobInUse after the page's file was deleted got %v, %v, want false", inUse, err)
		}
	})

	t.Run("kept assets count once against the account's storage, and a write over it is refused", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		usage := func() int64 {
			t.Helper()
			list, err := s.ListAccounts(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range list {
				if u.ID == a.ID {
					return u.Bytes
				}
			}
			t.Fatal("the account is not listed")
			return 0
		}
		base := usage()
		big := kept
		big.Size = 1000
		// The same bytes on two pages count once.
		for _, file := range []fileframe.File{f, g} {
			if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: file.ID, HTML: pageHTML(1, 100), Served: served,
				Assets: []fileframe.PageAsset{big}, At: at, StorageLimit: base + 1000}); err != nil {
				t.Fatalf("SavePage within the limit: %v", err)
			}
		}
		if got := usage(); got != base+1000 {
			t.Errorf("usage with one asset kept by two pages: %d, want %d", got, base+1000)
		}
		// New bytes over the limit: refused, nothing stored.
		other := big
		other.SHA256, other.URL = strings.Repeat("ab", 32), "https://cdn.example/b.png"
		_, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(2, 100), Served: served,
			Assets: []fileframe.PageAsset{big, other}, At: at, StorageLimit: base + 1500})
		wantCode(t, "SavePage over the storage limit", err, fileframe.CodeQuotaExceeded)
		if p, _ := s.PageByFile(t.Context(), f.ID); p.LatestRevision != 1 {
			t.Errorf("a refused save left revision %d", p.LatestRevision)
		}
		err = s.SetRevisionAssets(t.Context(), f.ID, 1, served, []fileframe.PageAsset{big, other}, base+1500)
		wantCode(t, "SetRevisionAssets over the storage limit", err, fileframe.CodeQuotaExceeded)
		// Reusing what is kept adds nothing, whatever the limit.
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(3, 100), Served: served,
			Assets: []fileframe.PageAsset{big}, At: at, StorageLimit: 1}); err != nil {
			t.Errorf("SavePage reusing a kept asset over the limit: %v", err)
		}
	})

	t.Run("pruned revisions take their assets with them", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: pageHTML(0, 100), Served: served,
			Assets: []fileframe.PageAsset{kept}, At: at}); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= fileframe.RevisionsKept; n++ {
			savePage(t, s, f.ID, pageHTML(n, 100), false)
		}
		_, err := s.Asset(t.Context(), assetSum)
		wantCode(t, "Asset of a pruned revision", err, fileframe.ENOTFOUND)
	})
}

// assetEqual compares assets, times to the millisecond.
func assetEqual(a, b fileframe.PageAsset) bool {
	return a.URL == b.URL && a.Kind == b.Kind && a.SHA256 == b.SHA256 && a.Type == b.Type && a.Ext == b.Ext &&
		a.Size == b.Size && a.Problem == b.Problem && a.FetchedAt.Equal(b.FetchedAt)
}
