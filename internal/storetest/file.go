package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// normFile returns f with its times as the store must at least keep them.
func normFile(f fileframe.File) fileframe.File {
	f.CreatedAt = ms(f.CreatedAt)
	return f
}

func testFiles(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateFile sets ID, Slug and CreatedAt when empty", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		before := time.Now()
		f, err := s.CreateFile(t.Context(), fileframe.File{
			AccountID: a.ID, Name: "photo.jpg", Size: 5, ContentType: "image/jpeg", BlobKey: "k1",
		})
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		if f.ID == "" {
			t.Errorf("CreateFile: ID got empty, want a new ID")
		}
		if f.Slug == "" {
			t.Errorf("CreateFile: Slug got empty, want a new slug")
		}
		wantRecent(t, "CreateFile: CreatedAt", f.CreatedAt, before)
		g := newFile(t, s, a.ID)
		if f.ID == g.ID || f.Slug == g.Slug {
			t.Errorf("two CreateFile: got IDs %q, %q and slugs %q, %q, want them different", f.ID, g.ID, f.Slug, g.Slug)
		}
	})

	t.Run("FileByID and FileBySlug return every field", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		want := fileframe.File{
			ID:          "f_given",
			AccountID:   a.ID,
			Kind:        fileframe.FileKindFile,
			Name:        "Quarterly report (final) é.pdf",
			Size:        1 << 40,
			ContentType: "application/pdf",
			BlobKey:     "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
			Slug:        "AbCdEf123456",
			CreatedAt:   stamp,
			Shared:      true, // every file CreateFile stores is
		}
		created, err := s.CreateFile(t.Context(), want)
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		if got, want := normFile(created), normFile(want); got != want {
			t.Errorf("CreateFile: got %+v, want %+v", got, want)
		}
		got, err := s.FileByID(t.Context(), "f_given")
		if err != nil {
			t.Fatalf("FileByID: %v", err)
		}
		if got, want := normFile(got), normFile(want); got != want {
			t.Errorf("FileByID: got %+v, want %+v", got, want)
		}
		got, err = s.FileBySlug(t.Context(), "AbCdEf123456")
		if err != nil {
			t.Fatalf("FileBySlug: %v", err)
		}
		if got, want := normFile(got), normFile(want); got != want {
			t.Errorf("FileBySlug: got %+v, want %+v", got, want)
		}
	})

	t.Run("FileBySlug is case-sensitive", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "x", Slug: "abcDEF123456"})
		if err != nil {
			t.Fatalf("CreateFile: %v", err)
		}
		_, err = s.FileBySlug(t.Context(), "ABCdef123456")
		wantCode(t, "FileBySlug(other case)", err, fileframe.ENOTFOUND)
		// Slugs differing only in case are different links.
		if _, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "y", Slug: "ABCdef123456"}); err != nil {
			t.Errorf("CreateFile(slug %q beside %q): got %v, want nil", "ABCdef123456", f.Slug, err)
		}
	})

	t.Run("CreateFile with a taken slug is ECONFLICT", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		f := newFile(t, s, a.ID)
		_, err := s.CreateFile(t.Context(), fileframe.File{AccountID: b.ID, Name: "other", Slug: f.Slug})
		wantCode(t, "CreateFile(taken slug)", err, fileframe.ECONFLICT)
	})

	t.Run("CreateFile with a taken ID is ECONFLICT", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		_, err := s.CreateFile(t.Context(), fileframe.File{ID: f.ID, AccountID: a.ID, Name: "other"})
		wantCode(t, "CreateFile(taken ID)", err, fileframe.ECONFLICT)
	})

	t.Run("CreateFile for a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		_, err := s.CreateFile(t.Context(), fileframe.File{AccountID: "a_missing", Name: "x"})
		wantCode(t, "CreateFile(missing account)", err, fileframe.ENOTFOUND)
	})

	t.Run("FileByID and FileBySlug of a missing file are ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newFile(t, s, newAccount(t, s).ID)
		_, err := s.FileByID(t.Context(), "f_missing")
		wantCode(t, "FileByID(missing)", err, fileframe.ENOTFOUND)
		_, err = s.FileBySlug(t.Context(), "missing00000")
		wantCode(t, "FileBySlug(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("AddDownloads adds to several files in one call and skips missing files", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g, h := newFile(t, s, a.ID), newFile(t, s, a.ID), newFile(t, s, a.ID)
		err := s.AddDownloads(t.Context(), map[fileframe.FileID]int64{f.ID: 3, g.ID: 1, "f_missing": 7})
		if err != nil {
			t.Fatalf("AddDownloads: %v", err)
		}
		if err := s.AddDownloads(t.Context(), map[fileframe.FileID]int64{f.ID: 2}); err != nil {
			t.Fatalf("AddDownloads: %v", err)
		}
		for _, c := range []struct {
			id   fileframe.FileID
			want int64
		}{{f.ID, 5}, {g.ID, 1}, {h.ID, 0}} {
			got, err := s.FileByID(t.Context(), c.id)
			if err != nil {
				t.Fatalf("FileByID: %v", err)
			}
			if got.Downloads != c.want {
				t.Errorf("file %s: Downloads got %d, want %d", c.id, got.Downloads, c.want)
			}
		}
		_, err = s.FileByID(t.Context(), "f_missing")
		wantCode(t, "FileByID(missing) after AddDownloads", err, fileframe.ENOTFOUND)
	})

	t.Run("AddDownloads with no counts succeeds", func(t *testing.T) {
		s := newStore(t)
		if err := s.AddDownloads(t.Context(), nil); err != nil {
			t.Errorf("AddDownloads(nil): got %v, want nil", err)
		}
		if err := s.AddDownloads(t.Context(), map[fileframe.FileID]int64{}); err != nil {
			t.Errorf("AddDownloads(empty): got %v, want nil", err)
		}
	})
}

// listingIDs returns the IDs of the listed files, in order.
func listingIDs(list []fileframe.FileListing) []fileframe.FileID {
	var ids []fileframe.FileID
	for _, l := range list {
		ids = append(ids, l.ID)
	}
	return ids
}

func testFileManagement(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("FilesByAccount lists the account's files newest first with their page state and appearance", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		list, err := s.FilesByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("FilesByAccount(no files): %v", err)
		}
		if list == nil || len(list) != 0 {
			t.Errorf("FilesByAccount(no files): got %#v, want an empty, non-nil list", list)
		}
		mk := func(account fileframe.AccountID, at time.Time) fileframe.File {
			f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: account, Name: "n", Size: 3, ContentType: "text/plain", BlobKey: "k", CreatedAt: at})
			if err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
			return f
		}
		// Created out of order: the list follows CreatedAt.
		mid := mk(a.ID, stamp.Add(time.Hour))     // draft page: 2 revisions, none live
		old := mk(a.ID, stamp)                    // no page
		other := mk(b.ID, stamp.Add(3*time.Hour)) // another account's
		last := mk(a.ID, stamp.Add(2*time.Hour))  // published page: 2 revisions, 2 live
		savePage(t, s, mid.ID, pageHTML(1, 100), true)
		savePage(t, s, mid.ID, pageHTML(2, 100), false)
		savePage(t, s, last.ID, pageHTML(1, 100), false)
		savePage(t, s, last.ID, pageHTML(2, 100), true)
		savePage(t, s, other.ID, pageHTML(1, 100), true)
		if err := s.AddDownloads(t.Context(), map[fileframe.FileID]int64{last.ID: 4}); err != nil {
			t.Fatalf("AddDownloads: %v", err)
		}
		last.Downloads = 4
		look := fileframe.Appearance{Template: "bold", Headline: "H", Message: "M", Accent: "#112233", LogoKey: "lk", Background: "bk"}
		if err := s.SetFileAppearance(t.Context(), mid.ID, look, 0, time.Now()); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		list, err = s.FilesByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("FilesByAccount: %v", err)
		}
		want := []fileframe.FileListing{
			{File: last, LatestRevision: 2, LiveRevision: 2},
			{File: mid, LatestRevision: 2, LiveRevision: 0, Appearance: look},
			{File: old, LatestRevision: 0, LiveRevision: 0},
		}
		if len(list) != len(want) {
			t.Fatalf("FilesByAccount: got files %v, want %v", listingIDs(list), listingIDs(want))
		}
		for i := range want {
			got := list[i]
			got.File = normFile(got.File)
			want[i].File = normFile(want[i].File)
			if got != want[i] {
				t.Errorf("FilesByAccount[%d]: got %+v, want %+v", i, got, want[i])
			}
		}
	})

	t.Run("FilesByAccount orders files made in one millisecond as they were made", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		var want []fileframe.FileID
		for i := range 5 {
			// IDs in ascending order, so that an order by ID would show.
			f, err := s.CreateFile(t.Context(), fileframe.File{ID: fileframe.FileID(fmt.Sprintf("f_%d", i)), AccountID: a.ID, Name: "n", CreatedAt: stamp})
			if err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
			want = append([]fileframe.FileID{f.ID}, want...)
		}
		list, err := s.FilesByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("FilesByAccount: %v", err)
		}
		if got := listingIDs(list); !slices.Equal(got, want) {
			t.Errorf("FilesByAccount: IDs got %v, want %v (newest first)", got, want)
		}
	})

	t.Run("FilesByAccount of a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newFile(t, s, newAccount(t, s).ID)
		_, err := s.FilesByAccount(t.Context(), "a_missing")
		wantCode(t, "FilesByAccount(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("RenameFile changes the name and nothing else", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		for _, name := range []string{"Annual report (final) é ✓.pdf", strings.Repeat("é", 127) + "x", "a"} {
			if err := s.RenameFile(t.Context(), f.ID, name); err != nil {
				t.Fatalf("RenameFile(%q): %v", name, err)
			}
			got, err := s.FileBySlug(t.Context(), f.Slug)
			if err != nil {
				t.Fatalf("FileBySlug: %v", err)
			}
			want := f
			want.Name = name
			if got, want := normFile(got), normFile(want); got != want {
				t.Errorf("after RenameFile(%q): got %+v, want %+v", name, got, want)
			}
		}
		if got, err := s.FileByID(t.Context(), g.ID); err != nil || got.Name != g.Name {
			t.Errorf("another file after RenameFile: Name got %q, %v, want %q", got.Name, err, g.Name)
		}
	})

	t.Run("RenameFile refuses a name that is empty, too long or has control characters", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		for _, name := range []string{
			"",
			strings.Repeat("a", 256),
			strings.Repeat("é", 128), // 256 bytes
			"a\x00b",
			"line\nbreak",
			"tab\there",
			"del\x7f",
			"c1\u0085",
			"bad \xff utf-8",
		} {
			err := s.RenameFile(t.Context(), f.ID, name)
			wantCode(t, fmt.Sprintf("RenameFile(%q)", name), err, fileframe.EINVALID)
		}
		if got, err := s.FileByID(t.Context(), f.ID); err != nil || got.Name != f.Name {
			t.Errorf("after refused renames: Name got %q, %v, want %q", got.Name, err, f.Name)
		}
	})

	t.Run("RenameFile of a missing file is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newFile(t, s, newAccount(t, s).ID)
		err := s.RenameFile(t.Context(), "f_missing", "x")
		wantCode(t, "RenameFile(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("DeleteFile removes the file, its page, revisions, appearance and page-bound keys", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f, g := newFile(t, s, a.ID), newFile(t, s, a.ID)
		shared := pageHTML(1, 300)
		savePage(t, s, f.ID, shared, true)
		savePage(t, s, f.ID, pageHTML(2, 300), false)
		savePage(t, s, g.ID, shared, true) // the other file's page shares HTML
		if err := s.SetFileAppearance(t.Context(), f.ID, fullAppearance(1), 0, time.Now()); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		if err := s.SetFileAppearance(t.Context(), g.ID, fullAppearance(2), 0, time.Now()); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		bound := newKey(t, s, a.ID, f.ID)
		boundG := newKey(t, s, a.ID, g.ID)
		general := newKey(t, s, a.ID, "")

		got, err := s.DeleteFile(t.Context(), f.ID)
		if err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		if got, want := normFile(got), normFile(f); got != want {
			t.Errorf("DeleteFile: returned %+v, want the deleted file %+v", got, want)
		}
		_, err = s.FileByID(t.Context(), f.ID)
		wantCode(t, "FileByID(deleted)", err, fileframe.ENOTFOUND)
		_, err = s.FileBySlug(t.Context(), f.Slug)
		wantCode(t, "FileBySlug(deleted)", err, fileframe.ENOTFOUND)
		_, err = s.PageByFile(t.Context(), f.ID)
		wantCode(t, "PageByFile(deleted)", err, fileframe.ENOTFOUND)
		_, err = s.Revisions(t.Context(), f.ID)
		wantCode(t, "Revisions(deleted)", err, fileframe.ENOTFOUND)
		for _, n := range []int{1, 2} {
			_, err = s.Revision(t.Context(), f.ID, n)
			wantCode(t, fmt.Sprintf("Revision(deleted, %d)", n), err, fileframe.ENOTFOUND)
		}
		_, err = s.FileAppearance(t.Context(), f.ID)
		wantCode(t, "FileAppearance(deleted)", err, fileframe.ENOTFOUND)
		_, err = s.KeyByHash(t.Context(), bound.Hash)
		wantCode(t, "KeyByHash(page-bound key of the deleted file)", err, fileframe.ENOTFOUND)
		keys, err := s.KeysByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("KeysByAccount: %v", err)
		}
		var kept []fileframe.KeyID
		for _, k := range keys {
			kept = append(kept, k.ID)
		}
		slices.Sort(kept)
		wantKept := []fileframe.KeyID{boundG.ID, general.ID}
		slices.Sort(wantKept)
		if !slices.Equal(kept, wantKept) {
			t.Errorf("KeysByAccount after DeleteFile: got %v, want %v (the general key and the other file's)", kept, wantKept)
		}

		// The other file keeps everything, the shared HTML included.
		if _, err := s.FileByID(t.Context(), g.ID); err != nil {
			t.Errorf("FileByID(other file): %v", err)
		}
		r, err := s.Revision(t.Context(), g.ID, 1)
		if err != nil {
			t.Fatalf("Revision(other file, 1): %v", err)
		}
		if string(r.HTML) != string(shared) {
			t.Errorf("Revision(other file, 1): HTML got %d bytes, want the %d shared bytes", len(r.HTML), len(shared))
		}
		if got, err := s.FileAppearance(t.Context(), g.ID); err != nil || got != fullAppearance(2) {
			t.Errorf("FileAppearance(other file): got %+v, %v, want %+v", got, err, fullAppearance(2))
		}
		list, err := s.FilesByAccount(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("FilesByAccount: %v", err)
		}
		if got := listingIDs(list); !slices.Equal(got, []fileframe.FileID{g.ID}) {
			t.Errorf("FilesByAccount after DeleteFile: got %v, want [%s]", got, g.ID)
		}

		// The ID can be used again; the new file starts with nothing.
		again, err := s.CreateFile(t.Context(), fileframe.File{ID: f.ID, AccountID: a.ID, Name: "again"})
		if err != nil {
			t.Fatalf("CreateFile(the deleted file's ID): %v", err)
		}
		if p := savePage(t, s, again.ID, pageHTML(3, 100), false); p.LatestRevision != 1 {
			t.Errorf("SavePage on a file made with a deleted file's ID: LatestRevision got %d, want 1", p.LatestRevision)
		}
		if got, err := s.FileAppearance(t.Context(), again.ID); err != nil || !got.IsZero() {
			t.Errorf("FileAppearance(new file with a deleted file's ID): got %+v, %v, want the zero value", got, err)
		}
	})

	t.Run("DeleteFile of a missing file is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		f := newFile(t, s, newAccount(t, s).ID)
		_, err := s.DeleteFile(t.Context(), "f_missing")
		wantCode(t, "DeleteFile(missing)", err, fileframe.ENOTFOUND)
		if _, err := s.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		_, err = s.DeleteFile(t.Context(), f.ID)
		wantCode(t, "DeleteFile(twice)", err, fileframe.ENOTFOUND)
	})

	t.Run("BlobInUse follows files and appearance images", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		inUse := func(key string, want bool, why string) {
			t.Helper()
			got, err := s.BlobInUse(t.Context(), key)
			if err != nil {
				t.Fatalf("BlobInUse(%s): %v", why, err)
			}
			if got != want {
				t.Errorf("BlobInUse(%s): got %v, want %v", why, got, want)
			}
		}
		mk := func(blob string) fileframe.File {
			f, err := s.CreateFile(t.Context(), fileframe.File{AccountID: a.ID, Name: "n", BlobKey: blob})
			if err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
			return f
		}
		inUse("never", false, "a key nothing refers to")
		inUse("", false, "the empty key")

		only := mk("only")
		inUse("only", true, "the blob of one file")
		if _, err := s.DeleteFile(t.Context(), only.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("only", false, "after deleting its only file")

		one, two := mk("shared"), mk("shared")
		if _, err := s.DeleteFile(t.Context(), one.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("shared", true, "a blob of two files after deleting one")
		if _, err := s.DeleteFile(t.Context(), two.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("shared", false, "a blob of two files after deleting both")

		// Appearance images: the account's and a file's, logo and background.
		f := mk("file-blob")
		if err := s.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{Template: "t", LogoKey: "acct-logo", Background: "acct-bg"}, 0, time.Now()); err != nil {
			t.Fatalf("SetAccountAppearance: %v", err)
		}
		if err := s.SetFileAppearance(t.Context(), f.ID, fileframe.Appearance{Template: "t", LogoKey: "file-logo", Background: "file-bg"}, 0, time.Now()); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		for _, key := range []string{"acct-logo", "acct-bg", "file-logo", "file-bg"} {
			inUse(key, true, "appearance image "+key)
		}
		if err := s.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{Template: "t", LogoKey: "acct-logo"}, 0, time.Now()); err != nil {
			t.Fatalf("SetAccountAppearance: %v", err)
		}
		inUse("acct-bg", false, "an account background replaced by none")
		inUse("acct-logo", true, "an account logo kept")
		if err := s.SetAccountAppearance(t.Context(), a.ID, fileframe.Appearance{}, 0, time.Now()); err != nil {
			t.Fatalf("SetAccountAppearance(zero): %v", err)
		}
		inUse("acct-logo", false, "an account logo after clearing the appearance")
		if _, err := s.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("file-logo", false, "a file's logo after deleting the file")
		inUse("file-bg", false, "a file's background after deleting the file")
		inUse("file-blob", false, "a file's blob after deleting the file")

		// One image used by a file's appearance and as a file's bytes.
		g := mk("both")
		h := mk("h")
		if err := s.SetFileAppearance(t.Context(), h.ID, fileframe.Appearance{Template: "t", Background: "both"}, 0, time.Now()); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		if _, err := s.DeleteFile(t.Context(), g.ID); err != nil {
			t.Fatalf("DeleteFile: %v", err)
		}
		inUse("both", true, "a file's blob that another file's appearance uses")
	})
}

// testListFiles: pages of an account's files, newest first, by cursor.
func testListFiles(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	s := newStore(t)
	ctx := t.Context()
	a, other := newAccount(t, s), newAccount(t, s)
	newFile(t, s, other.ID)
	// Seven files, three of them in the same millisecond: the ID breaks
	// the tie.
	base := time.Now().Add(-time.Hour)
	var want []fileframe.FileID
	for i, at := range []time.Duration{0, 1, 2, 2, 2, 3, 4} {
		f, err := s.CreateFile(ctx, fileframe.File{AccountID: a.ID, Name: fmt.Sprintf("f%d.pdf", i), Size: 1,
			ContentType: "application/pdf", BlobKey: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			CreatedAt: base.Add(at * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, f.ID)
	}
	all, err := s.FilesByAccount(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first by time, then by ID descending.
	slices.SortStableFunc(all, func(x, y fileframe.FileListing) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(string(y.ID), string(x.ID))
	})
	var got []fileframe.FileID
	q := fileframe.FileQuery{Account: a.ID, Limit: 3}
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("the pages never end")
		}
		page, err := s.ListFiles(ctx, q)
		if err != nil {
			t.Fatalf("ListFiles: %v", err)
		}
		if len(page) > 3 {
			t.Fatalf("ListFiles: %d files, want at most 3", len(page))
		}
		if len(page) == 0 {
			break
		}
		for _, l := range page {
			got = append(got, l.ID)
		}
		last := page[len(page)-1]
		q.After = &fileframe.FileCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	if !slices.Equal(got, listingIDs(all)) {
		t.Errorf("the pages' files: got %v, want %v", got, listingIDs(all))
	}
	if len(got) != len(want) {
		t.Errorf("got %d files, want %d", len(got), len(want))
	}
	_, err = s.ListFiles(ctx, fileframe.FileQuery{Account: "a_missing", Limit: 3})
	wantCode(t, "ListFiles of a missing account", err, fileframe.ENOTFOUND)
	_, err = s.ListFiles(ctx, fileframe.FileQuery{Account: a.ID, Limit: 0})
	wantCode(t, "ListFiles with limit 0", err, fileframe.EINVALID)
}
