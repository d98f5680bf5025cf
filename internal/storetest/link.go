package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

func testLinks(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	s := newStore(t)
	ctx := t.Context()
	a := newAccount(t, s)
	const ttl = 5 * time.Minute
	now := time.Now()

	t.Run("SetLink round-trips and a new limit starts its count again", func(t *testing.T) {
		f := newFile(t, s, a.ID)
		l := fileframe.Link{ExpiresAt: stamp.AddDate(10, 0, 0), MaxDownloads: 3, RemoveWhenEnded: true,
			PasswordHash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g", Reveal: fileframe.RevealName}
		got, err := s.SetLink(ctx, f.ID, l)
		if err != nil {
			t.Fatalf("SetLink: %v", err)
		}
		want := l
		want.ExpiresAt = ms(stamp.AddDate(10, 0, 0))
		for _, g := range []fileframe.File{got, mustFile(t, s, f.ID), mustFileBySlug(t, s, f.Slug)} {
			if g.Link != want {
				t.Errorf("link: got %+v, want %+v", g.Link, want)
			}
		}
		claimAndFinish(t, s, f.ID, now, true)
		if g := mustFile(t, s, f.ID); g.LinkDownloads != 1 {
			t.Errorf("LinkDownloads: got %d, want 1", g.LinkDownloads)
		}
		l.PasswordHash = ""
		if g, _ := s.SetLink(ctx, f.ID, l); g.LinkDownloads != 1 {
			t.Errorf("the same limit: LinkDownloads %d, want 1 (kept)", g.LinkDownloads)
		}
		l.MaxDownloads = 5
		if g, _ := s.SetLink(ctx, f.ID, l); g.LinkDownloads != 0 {
			t.Errorf("a new limit: LinkDownloads %d, want 0", g.LinkDownloads)
		}
		_, err = s.SetLink(ctx, "f_missing", l)
		wantCode(t, "SetLink of a missing file", err, fileframe.ENOTFOUND)
		l.Reveal = "everything"
		_, err = s.SetLink(ctx, f.ID, l)
		wantCode(t, "SetLink with an unknown reveal", err, fileframe.EINVALID)
		// The listing carries the controls too.
		list, err := s.FilesByAccount(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range list {
			if item.ID == f.ID && item.Link.MaxDownloads != 5 {
				t.Errorf("listing: link %+v", item.Link)
			}
		}
	})

	t.Run("expiry holds from its exact millisecond", func(t *testing.T) {
		f := newFile(t, s, a.ID)
		end := now.Add(time.Hour).Truncate(time.Millisecond)
		mustSetLink(t, s, f.ID, fileframe.Link{ExpiresAt: end})
		if err := s.ClaimDownload(ctx, f.ID, claimID(), end.Add(-time.Millisecond), ttl); err != nil {
			t.Errorf("a millisecond before: %v", err)
		}
		wantCode(t, "at the moment", s.ClaimDownload(ctx, f.ID, claimID(), end, ttl), fileframe.CodeLinkExpired)
	})

	t.Run("a one-time link: of concurrent claims exactly one runs", func(t *testing.T) {
		f := newFile(t, s, a.ID)
		mustSetLink(t, s, f.ID, fileframe.Link{MaxDownloads: 1})
		const n = 12
		claims := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				claims[i] = claimID()
				errs[i] = s.ClaimDownload(ctx, f.ID, claims[i], now, ttl)
			}()
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch code := fileframe.ErrorCode(err); {
			case err == nil && won < 0:
				won = i
			case err == nil:
				t.Errorf("claims %d and %d both won", won, i)
			case code != fileframe.CodeLinkBusy:
				t.Errorf("claim %d: %v, want %s", i, err, fileframe.CodeLinkBusy)
			}
		}
		if won < 0 {
			t.Fatal("no claim won")
		}
		// A failed transfer gives the room back; a completed one uses it up.
		if err := s.FinishDownload(ctx, f.ID, claims[won], false); err != nil {
			t.Fatal(err)
		}
		claimAndFinish(t, s, f.ID, now, true)
		wantCode(t, "after the download", s.ClaimDownload(ctx, f.ID, claimID(), now, ttl), fileframe.CodeLinkUsedUp)
		if got := mustFile(t, s, f.ID).LinkState(now); got != fileframe.LinkUsedUp {
			t.Errorf("LinkState: %s, want used_up", got)
		}
	})

	t.Run("a claim whose process died frees its room when it expires", func(t *testing.T) {
		f := newFile(t, s, a.ID)
		mustSetLink(t, s, f.ID, fileframe.Link{MaxDownloads: 1})
		c := claimID()
		if err := s.ClaimDownload(ctx, f.ID, c, now, ttl); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "while it runs", s.ClaimDownload(ctx, f.ID, claimID(), now.Add(ttl/2), ttl), fileframe.CodeLinkBusy)
		if err := s.RenewDownloadClaim(ctx, c, now.Add(ttl/2), ttl); err != nil {
			t.Fatalf("RenewDownloadClaim: %v", err)
		}
		wantCode(t, "renewed, after the first ttl", s.ClaimDownload(ctx, f.ID, claimID(), now.Add(ttl+time.Second), ttl), fileframe.CodeLinkBusy)
		if err := s.ClaimDownload(ctx, f.ID, claimID(), now.Add(2*ttl), ttl); err != nil {
			t.Errorf("after the renewed claim expired: %v", err)
		}
		wantCode(t, "RenewDownloadClaim of a missing claim", s.RenewDownloadClaim(ctx, "missing", now, ttl), fileframe.ENOTFOUND)
		// A completed download whose claim was collected still counts.
		if err := s.FinishDownload(ctx, f.ID, c, true); err != nil {
			t.Fatal(err)
		}
		if got := mustFile(t, s, f.ID).LinkDownloads; got != 1 {
			t.Errorf("LinkDownloads: %d, want 1", got)
		}
	})

	t.Run("unlimited links claim freely", func(t *testing.T) {
		f := newFile(t, s, a.ID)
		for range 3 {
			if err := s.ClaimDownload(ctx, f.ID, claimID(), now, ttl); err != nil {
				t.Fatalf("claim on an unlimited link: %v", err)
			}
		}
		wantCode(t, "ClaimDownload of a missing file", s.ClaimDownload(ctx, "f_missing", claimID(), now, ttl), fileframe.ENOTFOUND)
	})

	t.Run("ended links are removed, and their slugs are gone", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		expired, usedUp, kept, live := newFile(t, s, a.ID), newFile(t, s, a.ID), newFile(t, s, a.ID), newFile(t, s, a.ID)
		mustSetLink(t, s, expired.ID, fileframe.Link{ExpiresAt: now.Add(-time.Minute), RemoveWhenEnded: true})
		mustSetLink(t, s, usedUp.ID, fileframe.Link{MaxDownloads: 1, RemoveWhenEnded: true})
		claimAndFinish(t, s, usedUp.ID, now, true)
		mustSetLink(t, s, kept.ID, fileframe.Link{ExpiresAt: now.Add(-time.Minute)})
		mustSetLink(t, s, live.ID, fileframe.Link{ExpiresAt: now.Add(time.Hour), MaxDownloads: 2, RemoveWhenEnded: true})
		ended, err := s.EndedLinks(ctx, now, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := map[fileframe.FileID]bool{}
		for _, f := range ended {
			got[f.ID] = true
		}
		if len(got) != 2 || !got[expired.ID] || !got[usedUp.ID] {
			t.Errorf("EndedLinks: got %v, want the expired and the used-up file", got)
		}
		if _, err := s.DeleteEndedFile(ctx, expired.ID, fileframe.LinkExpired, now); err != nil {
			t.Fatalf("DeleteEndedFile: %v", err)
		}
		_, err = s.FileByID(ctx, expired.ID)
		wantCode(t, "FileByID after DeleteEndedFile", err, fileframe.ENOTFOUND)
		g, err := s.GoneLinkBySlug(ctx, expired.Slug)
		if err != nil || g.Reason != fileframe.LinkExpired || g.At.IsZero() {
			t.Errorf("GoneLinkBySlug: %+v, %v", g, err)
		}
		_, err = s.GoneLinkBySlug(ctx, live.Slug)
		wantCode(t, "GoneLinkBySlug of a live link", err, fileframe.ENOTFOUND)
		_, err = s.DeleteEndedFile(ctx, usedUp.ID, "deleted", now)
		wantCode(t, "DeleteEndedFile with another reason", err, fileframe.EINVALID)
	})
}

var claimSeq struct {
	sync.Mutex
	n int
}

// claimID returns a new claim ID.
func claimID() string {
	claimSeq.Lock()
	defer claimSeq.Unlock()
	claimSeq.n++
	return fmt.Sprintf("c%d-%s", claimSeq.n, fileframe.RandomBase62(8))
}

func claimAndFinish(t *testing.T, s fileframe.Store, id fileframe.FileID, now time.Time, completed bool) {
	t.Helper()
	c := claimID()
	if err := s.ClaimDownload(t.Context(), id, c, now, time.Minute); err != nil {
		t.Fatalf("ClaimDownload: %v", err)
	}
	if err := s.FinishDownload(t.Context(), id, c, completed); err != nil {
		t.Fatalf("FinishDownload: %v", err)
	}
}

func mustSetLink(t *testing.T, s fileframe.Store, id fileframe.FileID, l fileframe.Link) {
	t.Helper()
	if _, err := s.SetLink(t.Context(), id, l); err != nil {
		t.Fatalf("SetLink: %v", err)
	}
}

func mustFile(t *testing.T, s fileframe.Store, id fileframe.FileID) fileframe.File {
	t.Helper()
	f, err := s.FileByID(t.Context(), id)
	if err != nil {
		t.Fatalf("FileByID: %v", err)
	}
	return f
}

func mustFileBySlug(t *testing.T, s fileframe.Store, slug string) fileframe.File {
	t.Helper()
	f, err := s.FileBySlug(t.Context(), slug)
	if err != nil {
		t.Fatalf("FileBySlug: %v", err)
	}
	return f
}
