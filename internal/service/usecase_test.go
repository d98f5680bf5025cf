package service

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

const okPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>T</title></head><body><h1>Hi</h1></body></html>`

// TestUseCasesPlanAndOwner: every use case refuses an account whose plan
// lacks the feature, and treats another account's file as missing; every
// write that visitors can see signals the change, and a refusal does not.
func TestUseCasesPlanAndOwner(t *testing.T) {
	ctx := context.Background()
	s, store, free := testService(t, fileframe.Quota{})
	var changes atomic.Int64
	s.changed = func() { changes.Add(1) }
	agency, err := store.CreateAccount(ctx, fileframe.Account{Email: "agency@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := store.CreateAccount(ctx, fileframe.Account{Email: "other@example.com", Plan: fileframe.PlanAgency})
	f, err := s.AddFile(ctx, NewFile{Account: agency, Name: "a.txt", Size: 1, Body: strings.NewReader("a")})
	if err != nil {
		t.Fatal(err)
	}
	freeFile, _ := s.AddFile(ctx, NewFile{Account: free, Name: "b.txt", Size: 1, Body: strings.NewReader("b")})
	changes.Store(0)

	for _, tt := range []struct {
		name string
		call func() error
		code string
	}{
		{"SavePage on Free", func() error {
			_, _, err := s.SavePage(ctx, free, freeFile, []byte(okPage), PageMode{Publish: true})
			return err
		}, fileframe.CodePlanRequired},
		{"SavePage of another account's file", func() error {
			_, _, err := s.SavePage(ctx, other, f, []byte(okPage), PageMode{Publish: true})
			return err
		}, fileframe.ENOTFOUND},
		{"PublishRevision on Free", func() error { _, err := s.PublishRevision(ctx, free, freeFile, 1); return err }, fileframe.CodePlanRequired},
		{"CreateKey on Free", func() error { _, _, err := s.CreateKey(ctx, NewKey{Account: free}); return err }, fileframe.CodePlanRequired},
		{"CreateKey for another account's file", func() error { _, _, err := s.CreateKey(ctx, NewKey{Account: other, File: f.ID}); return err }, fileframe.ENOTFOUND},
		{"CreateKey with a long name", func() error {
			_, _, err := s.CreateKey(ctx, NewKey{Account: agency, Name: strings.Repeat("n", 101)})
			return err
		}, fileframe.CodeInvalidField},
		{"SetAccountAppearance on Free", func() error { return s.SetAccountAppearance(ctx, free, fileframe.Appearance{Template: "bold"}) }, fileframe.CodePlanRequired},
		{"SetFileAppearance of another account's file", func() error { return s.SetFileAppearance(ctx, other, f, fileframe.Appearance{Template: "bold"}) }, fileframe.ENOTFOUND},
		{"RenameFile of another account's file", func() error { return s.RenameFile(ctx, other, f.ID, "x") }, fileframe.ENOTFOUND},
		{"RenameFile with CR/LF", func() error { return s.RenameFile(ctx, agency, f.ID, "a\r\nb") }, fileframe.CodeInvalidField},
		{"DeleteFile of another account's file", func() error { _, _, err := s.DeleteFile(ctx, other, f.ID); return err }, fileframe.ENOTFOUND},
		{"SavePage with a download button", func() error {
			_, _, err := s.SavePage(ctx, agency, f, []byte(strings.Replace(okPage, "<h1>Hi</h1>", `<a download href="x">Download</a>`, 1)), PageMode{Publish: true})
			return err
		}, fileframe.CodeHTMLInvalid},
		{"SavePage over 1 MiB", func() error {
			_, _, err := s.SavePage(ctx, agency, f, []byte(strings.Replace(okPage, "Hi", strings.Repeat("x", 1<<20), 1)), PageMode{Publish: true})
			return err
		}, fileframe.CodeHTMLTooLarge},
	} {
		if got := fileframe.ErrorCode(tt.call()); got != tt.code {
			t.Errorf("%s: got code %q, want %q", tt.name, got, tt.code)
		}
	}
	if n := changes.Load(); n != 0 {
		t.Errorf("refused calls signalled %d changes, want none", n)
	}

	// What works, each signalling one change.
	page, res, err := s.SavePage(ctx, agency, f, []byte(okPage), PageMode{Publish: true})
	if err != nil || !page.Published() || len(res.Errors) != 0 {
		t.Fatalf("SavePage: %+v, %v", page, err)
	}
	if page, err = s.PublishRevision(ctx, agency, f, 0); err != nil || page.Published() {
		t.Errorf("unpublish: %+v, %v", page, err)
	}
	if page, err = s.PublishLatest(ctx, agency, f); err != nil || page.LiveRevision != 1 {
		t.Errorf("PublishLatest: %+v, %v", page, err)
	}
	secret, k, err := s.CreateKey(ctx, NewKey{Account: agency, File: f.ID})
	if err != nil || !strings.HasPrefix(secret, fileframe.PageKeyPrefix) || k.Name != "Page of a.txt" || k.FileID != f.ID {
		t.Errorf("CreateKey page-bound: %q %+v %v", secret, k, err)
	}
	if err := s.RevokeKey(ctx, agency, k.ID); err != nil {
		t.Errorf("RevokeKey: %v", err)
	}
	if err := s.RevokeKey(ctx, other, k.ID); !fileframe.IsNotFound(err) {
		t.Errorf("RevokeKey of another account's key: %v, want not found", err)
	}
	if err := s.RenameFile(ctx, agency, f.ID, "  renamed.txt "); err != nil {
		t.Errorf("RenameFile: %v", err)
	}
	if got, _ := store.FileByID(ctx, f.ID); got.Name != "renamed.txt" {
		t.Errorf("name after rename: %q", got.Name)
	}
	if _, err := s.SetPlan(ctx, free.ID, fileframe.PlanPro); err != nil {
		t.Errorf("SetPlan: %v", err)
	}
	if err := s.SetDisabled(ctx, other.ID, true); err != nil {
		t.Errorf("SetDisabled: %v", err)
	}
	if _, _, err := s.DeleteFile(ctx, agency, f.ID); err != nil {
		t.Errorf("DeleteFile: %v", err)
	}
	if n := changes.Load(); n != 8 {
		t.Errorf("8 visible writes signalled %d changes", n)
	}
}

// TestCheckPageBusy: with every check slot taken, a check waits, then
// gives up with CodeBusy rather than queueing without end.
func TestCheckPageBusy(t *testing.T) {
	s, _, _ := testService(t, fileframe.Quota{})
	ctx := context.Background()
	slots := int64(0)
	for s.checks.TryAcquire(1) {
		slots++
	}
	defer s.checks.Release(slots)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := s.CheckPage(short, []byte(okPage)); err == nil {
		t.Errorf("CheckPage with every slot taken: got no error")
	}
	start := time.Now()
	_, err := s.CheckPage(ctx, []byte(okPage))
	if fileframe.ErrorCode(err) != fileframe.CodeBusy || time.Since(start) < checkWait {
		t.Errorf("CheckPage with every slot taken: %v after %v, want busy after %v", err, time.Since(start), checkWait)
	}
}

// TestPublishRevisionChecksAgain: a revision stored under older page rules
// (here, written to the store directly) is checked against today's when
// it is published or restored, and refused if it breaks them; the live
// page stays as it was.
func TestPublishRevisionChecksAgain(t *testing.T) {
	ctx := context.Background()
	s, store, _ := testService(t, fileframe.Quota{})
	a, err := store.CreateAccount(ctx, fileframe.Account{Email: "agency@example.com", Plan: fileframe.PlanAgency})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.AddFile(ctx, NewFile{Account: a, Name: "a.txt", Size: 1, Body: strings.NewReader("a")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SavePage(ctx, a, f, []byte(okPage), PageMode{Publish: true}); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(okPage, "<h1>Hi</h1>", `<a href="https://evil.example/setup.exe">Download</a>`, 1)
	if _, err := store.SavePage(ctx, fileframe.PageWrite{FileID: f.ID, HTML: []byte(old), At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	before, _ := store.PageByFile(ctx, f.ID)
	_, err = s.PublishRevision(ctx, a, f, 2)
	if fileframe.ErrorCode(err) != fileframe.CodeHTMLInvalid || !strings.Contains(fileframe.ErrorMessage(err), "Revision 2 breaks 2 of the page rules as they are now") {
		t.Fatalf("publishing a revision that breaks today's rules: got %v", err)
	}
	if _, err := s.PublishLatest(ctx, a, f); fileframe.ErrorCode(err) != fileframe.CodeHTMLInvalid {
		t.Errorf("PublishLatest of it: got %v, want html_invalid", err)
	}
	if p, _ := store.PageByFile(ctx, f.ID); p.LiveRevision != before.LiveRevision {
		t.Errorf("live revision after the refusals: %d, want %d as before", p.LiveRevision, before.LiveRevision)
	}
	if _, err := s.PublishRevision(ctx, a, f, 1); err != nil {
		t.Errorf("publishing the good revision: %v", err)
	}
	if _, err := s.PublishRevision(ctx, a, f, 0); err != nil {
		t.Errorf("unpublishing: %v", err)
	}
}
