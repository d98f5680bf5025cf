package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// sizedFile creates a file of the account with size bytes.
func sizedFile(t *testing.T, s fileframe.Store, a fileframe.AccountID, name string, size int64) fileframe.File {
	t.Helper()
	f, err := s.CreateFile(t.Context(), fileframe.File{
		AccountID: a, Name: name, Size: size, ContentType: "text/plain",
		BlobKey: fmt.Sprintf("%064x", size),
	})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}
	return f
}

// itemIDs returns the files' IDs of items, in order.
func itemIDs(t *testing.T, s fileframe.Store, c fileframe.FileID) []fileframe.FileID {
	t.Helper()
	items, err := s.CollectionItems(t.Context(), c)
	if err != nil {
		t.Fatalf("CollectionItems: %v", err)
	}
	ids := make([]fileframe.FileID, len(items))
	for i, it := range items {
		ids[i] = it.File.ID
	}
	return ids
}

func testCollections(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateCollection stores a collection row with its items in order and their size", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f1, f2 := sizedFile(t, s, a.ID, "a.txt", 10), sizedFile(t, s, a.ID, "b.txt", 32)
		c, err := s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "Set", BlobKey: "ignored", Size: 99},
			[]fileframe.FileID{f2.ID, f1.ID, f2.ID}, stamp)
		if err != nil {
			t.Fatalf("CreateCollection: %v", err)
		}
		got := mustFile(t, s, c.ID)
		if got.Kind != fileframe.FileKindCollection || !got.IsCollection() || got.BlobKey != "" ||
			got.ContentType != fileframe.CollectionContentType || got.Size != 42 || got.Name != "Set" || got.Slug == "" {
			t.Errorf("FileByID(collection): got %+v, want kind collection, no blob key, application/zip, size 42", got)
		}
		if c.Size != 42 {
			t.Errorf("CreateCollection: Size got %d, want 42", c.Size)
		}
		if ids := itemIDs(t, s, c.ID); !slices.Equal(ids, []fileframe.FileID{f2.ID, f1.ID}) {
			t.Errorf("CollectionItems: got %v, want %v", ids, []fileframe.FileID{f2.ID, f1.ID})
		}
		items, _ := s.CollectionItems(t.Context(), c.ID)
		if len(items) > 0 && !items[0].AddedAt.Equal(ms(stamp)) {
			t.Errorf("CollectionItems: AddedAt got %v, want %v", items[0].AddedAt, ms(stamp))
		}
		if f := mustFile(t, s, f1.ID); f.Kind != fileframe.FileKindFile || f.IsCollection() {
			t.Errorf("FileByID(file): Kind got %q, want %q", f.Kind, fileframe.FileKindFile)
		}
		if in, err := s.CollectionsOf(t.Context(), f1.ID); err != nil || !slices.Equal(in, []fileframe.FileID{c.ID}) {
			t.Errorf("CollectionsOf: got %v, %v; want [%s]", in, err, c.ID)
		}
		// Files made in the same millisecond list in either order: find the
		// collection among them.
		list, err := s.ListFiles(t.Context(), fileframe.FileQuery{Account: a.ID, Limit: 10})
		kinds := map[fileframe.FileID]fileframe.FileKind{}
		for _, l := range list {
			kinds[l.File.ID] = l.File.Kind
		}
		if err != nil || len(list) != 3 || kinds[c.ID] != fileframe.FileKindCollection || kinds[f1.ID] != fileframe.FileKindFile {
			t.Errorf("ListFiles: got %d files, %+v, %v; want 3, the collection listed as one", len(list), list, err)
		}
	})

	t.Run("items must be files of the same account", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		mine, theirs := sizedFile(t, s, a.ID, "a.txt", 1), sizedFile(t, s, b.ID, "b.txt", 2)
		_, err := s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "X"}, []fileframe.FileID{mine.ID, theirs.ID}, stamp)
		wantCode(t, "CreateCollection(another account's file)", err, fileframe.ENOTFOUND)
		list, _ := s.ListFiles(t.Context(), fileframe.FileQuery{Account: a.ID, Limit: 10})
		if len(list) != 1 {
			t.Errorf("after a refused CreateCollection: %d files, want 1 (nothing stored)", len(list))
		}
		c, err := s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "C"}, nil, stamp)
		if err != nil {
			t.Fatalf("CreateCollection(empty): %v", err)
		}
		_, err = s.AddToCollection(t.Context(), c.ID, []fileframe.FileID{"f_missing"}, stamp)
		wantCode(t, "AddToCollection(missing)", err, fileframe.ENOTFOUND)
		_, err = s.AddToCollection(t.Context(), c.ID, []fileframe.FileID{theirs.ID}, stamp)
		wantCode(t, "AddToCollection(another account's)", err, fileframe.ENOTFOUND)
		d, err := s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "D"}, nil, stamp)
		if err != nil {
			t.Fatalf("CreateCollection: %v", err)
		}
		_, err = s.AddToCollection(t.Context(), c.ID, []fileframe.FileID{d.ID}, stamp)
		wantCode(t, "AddToCollection(a collection)", err, fileframe.CodeNotCollectable)
		_, err = s.AddToCollection(t.Context(), c.ID, []fileframe.FileID{c.ID}, stamp)
		wantCode(t, "AddToCollection(itself)", err, fileframe.CodeNotCollectable)
		_, err = s.AddToCollection(t.Context(), mine.ID, []fileframe.FileID{mine.ID}, stamp)
		wantCode(t, "AddToCollection(to a file)", err, fileframe.ENOTFOUND)
		_, err = s.CollectionItems(t.Context(), mine.ID)
		wantCode(t, "CollectionItems(a file)", err, fileframe.ENOTFOUND)
		_, err = s.RemoveFromCollection(t.Context(), c.ID, mine.ID)
		wantCode(t, "RemoveFromCollection(not an item)", err, fileframe.ENOTFOUND)
	})

	t.Run("a received file joins a collection only once shared", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		r := newRequest(t, s, a.ID, 10, 1000)
		got, err := s.CreateRequestFile(t.Context(), receivedFile(r, 10),
			fileframe.RequestFile{RequestID: r.ID, VisitID: "v"}, "", "", fileframe.Quota{}, time.Now())
		if err != nil {
			t.Fatalf("CreateRequestFile: %v", err)
		}
		_, err = s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "Early"}, []fileframe.FileID{got.ID}, stamp)
		wantCode(t, "CreateCollection(an unshared received file)", err, fileframe.CodeNotCollectable)
		c, err := s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "Later"}, nil, stamp)
		if err != nil {
			t.Fatalf("CreateCollection(empty): %v", err)
		}
		_, err = s.AddToCollection(t.Context(), c.ID, []fileframe.FileID{got.ID}, stamp)
		wantCode(t, "AddToCollection(an unshared received file)", err, fileframe.CodeNotCollectable)
		if err := s.ShareFile(t.Context(), got.ID); err != nil {
			t.Fatalf("ShareFile: %v", err)
		}
		if _, err := s.AddToCollection(t.Context(), c.ID, []fileframe.FileID{got.ID}, stamp); err != nil {
			t.Errorf("AddToCollection(the shared file): %v", err)
		}
	})

	t.Run("adding and removing keep the slug, the order and the size", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f1, f2, f3 := sizedFile(t, s, a.ID, "1", 1), sizedFile(t, s, a.ID, "2", 20), sizedFile(t, s, a.ID, "3", 300)
		c, err := s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "C"}, []fileframe.FileID{f1.ID}, stamp)
		if err != nil {
			t.Fatalf("CreateCollection: %v", err)
		}
		got, err := s.AddToCollection(t.Context(), c.ID, []fileframe.FileID{f3.ID, f1.ID, f2.ID}, stamp)
		if err != nil || got.Size != 321 || got.Slug != c.Slug {
			t.Fatalf("AddToCollection: got size %d slug %q, %v; want 321, %q", got.Size, got.Slug, err, c.Slug)
		}
		if ids := itemIDs(t, s, c.ID); !slices.Equal(ids, []fileframe.FileID{f1.ID, f3.ID, f2.ID}) {
			t.Errorf("CollectionItems: got %v, want [1 3 2]", ids)
		}
		got, err = s.RemoveFromCollection(t.Context(), c.ID, f3.ID)
		if err != nil || got.Size != 21 || got.Slug != c.Slug {
			t.Errorf("RemoveFromCollection: got size %d slug %q, %v; want 21, %q", got.Size, got.Slug, err, c.Slug)
		}
		if _, err := s.DeleteFile(t.Context(), f1.ID); err != nil {
			t.Fatalf("DeleteFile(item): %v", err)
		}
		if got := mustFile(t, s, c.ID); got.Size != 20 {
			t.Errorf("after deleting an item: collection size %d, want 20", got.Size)
		}
		if ids := itemIDs(t, s, c.ID); !slices.Equal(ids, []fileframe.FileID{f2.ID}) {
			t.Errorf("CollectionItems after deleting an item: got %v, want [2]", ids)
		}
		if _, err := s.DeleteFile(t.Context(), c.ID); err != nil {
			t.Fatalf("DeleteFile(collection): %v", err)
		}
		if f := mustFile(t, s, f2.ID); f.Size != 20 {
			t.Errorf("an item after its collection was deleted: %+v", f)
		}
		if in, err := s.CollectionsOf(t.Context(), f2.ID); err != nil || len(in) != 0 {
			t.Errorf("CollectionsOf after the collection was deleted: %v, %v; want none", in, err)
		}
	})

	t.Run("collections hold no bytes: quota, file count and BlobInUse leave them out", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := sizedFile(t, s, a.ID, "a", 600)
		if _, err := s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "C"}, []fileframe.FileID{f.ID}, stamp); err != nil {
			t.Fatalf("CreateCollection: %v", err)
		}
		later := time.Now().Add(time.Hour)
		used, err := s.Reserve(t.Context(), fileframe.Reservation{ID: "r1", AccountID: a.ID, Bytes: 400, ExpiresAt: later},
			fileframe.Quota{Storage: 1000, Files: 2}, time.Now())
		if err != nil || used != 600 {
			t.Errorf("Reserve 400 of 1000 with a 600-byte file in a collection: got used %d, %v; want 600, nil", used, err)
		}
		if in, err := s.BlobInUse(t.Context(), ""); err != nil || in {
			t.Errorf("BlobInUse(\"\"): got %v, %v; want false", in, err)
		}
		accts, err := s.ListAccounts(t.Context())
		if err != nil {
			t.Fatalf("ListAccounts: %v", err)
		}
		for _, u := range accts {
			if u.Account.ID == a.ID && (u.Files != 1 || u.Bytes != 600) {
				t.Errorf("ListAccounts: got %d files, %d bytes; want 1, 600", u.Files, u.Bytes)
			}
		}
	})

	t.Run("parallel additions never exceed MaxCollectionFiles", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		c, err := s.CreateCollection(t.Context(), fileframe.File{AccountID: a.ID, Name: "C"}, nil, stamp)
		if err != nil {
			t.Fatalf("CreateCollection: %v", err)
		}
		// 990 items, then 8 additions of 5 new files each race for the
		// last 10 places: exactly two succeed.
		var base []fileframe.FileID
		for i := range 990 {
			base = append(base, fileframe.FileID(fmt.Sprintf("f_base%04d", i)))
		}
		for _, id := range base {
			if _, err := s.CreateFile(t.Context(), fileframe.File{ID: id, AccountID: a.ID, Name: "x", Size: 1, BlobKey: "k"}); err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
		}
		if _, err := s.AddToCollection(t.Context(), c.ID, base, stamp); err != nil {
			t.Fatalf("AddToCollection(990): %v", err)
		}
		var batches [8][]fileframe.FileID
		for i := range batches {
			for j := range 5 {
				f := sizedFile(t, s, a.ID, fmt.Sprintf("n%d-%d", i, j), 1)
				batches[i] = append(batches[i], f.ID)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, len(batches))
		for i := range batches {
			wg.Go(func() { _, errs[i] = s.AddToCollection(t.Context(), c.ID, batches[i], stamp) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch fileframe.ErrorCode(err) {
			case "":
				ok++
			case fileframe.CodeCollectionFull:
			default:
				t.Errorf("parallel AddToCollection: %v", err)
			}
		}
		if n := len(itemIDs(t, s, c.ID)); ok != 2 || n != fileframe.MaxCollectionFiles {
			t.Errorf("parallel AddToCollection: %d succeeded, %d items; want 2, %d", ok, n, fileframe.MaxCollectionFiles)
		}
		if got := mustFile(t, s, c.ID); got.Size != fileframe.MaxCollectionFiles {
			t.Errorf("collection size: got %d, want %d", got.Size, fileframe.MaxCollectionFiles)
		}
		_, err = s.AddToCollection(t.Context(), c.ID, []fileframe.FileID{sizedFile(t, s, a.ID, "late", 1).ID}, stamp)
		wantCode(t, "AddToCollection(1001st)", err, fileframe.CodeCollectionFull)
		// One already held is no new item: it fits.
		if _, err := s.AddToCollection(t.Context(), c.ID, base[:1], stamp); err != nil {
			t.Errorf("AddToCollection(an item it holds, when full): %v", err)
		}
	})
}
