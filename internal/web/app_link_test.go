package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestAppLinkForm changes a link through the file page's form (session and
// CSRF, as the other file forms): the state shows on the page and in the
// list; a mistake shows on the form with the input kept but the password.
func TestAppLinkForm(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanFree, withFastPasswords(t))
	path := filePath(fx.file)
	stored := func() fileframe.File {
		t.Helper()
		f, err := fx.e.store.FileByID(context.Background(), fx.file.ID)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	resp, body := fx.post(path+"/link", url.Values{"expiry": {"7d"}, "one_time": {"yes"}, "password": {"s3cret pass"},
		"remove_when_ended": {"yes"}, "reveal_name": {"yes"}, "max_downloads": {""}})
	wantRedirect(t, "link form", resp, body, path+"?done=link#link-title")
	f := stored()
	if d := time.Until(f.Link.ExpiresAt); d < 7*24*time.Hour-time.Minute || f.Link.MaxDownloads != 1 || !f.Link.RemoveWhenEnded || f.Link.Reveal != "name" || !checkPassword(t, fx.e, f.ID, "s3cret pass") {
		t.Errorf("the link form stored %+v", f.Link)
	}
	_, body = fx.b.get(path + "?done=link")
	for _, want := range []string{"The link&#39;s settings are saved.", "Expires in 6 days", "One-time · 0 of 1 download", ">Password<", `value="yes" checked><label for="link-one-time">`, `id="link-remove-password"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the file page lacks %q", want)
		}
	}
	if strings.Contains(body, "s3cret") {
		t.Error("the file page shows the password")
	}
	_, list := fx.b.get("/files")
	if !strings.Contains(list, "Expires in 6 days") || !strings.Contains(list, ">Live<") {
		t.Errorf("the file list lacks the link's state")
	}

	// A date and time, a limit, no password; the password field kept empty.
	at := time.Now().Add(72 * time.Hour).UTC().Truncate(time.Minute)
	resp, body = fx.post(path+"/link", url.Values{"expiry": {"at"}, "expires_at": {at.Format(datetimeLocal)}, "max_downloads": {"5"}, "remove_password": {"yes"}})
	wantRedirect(t, "link form with a date", resp, body, path+"?done=link#link-title")
	if f := stored(); !f.Link.ExpiresAt.Equal(at) || f.Link.MaxDownloads != 5 || f.Link.PasswordHash != "" || f.Link.RemoveWhenEnded || f.Link.Reveal != "" {
		t.Errorf("the second change stored %+v", f.Link)
	}
	resp, body = fx.post(path+"/link", url.Values{"expiry": {"never"}, "max_downloads": {"5"}})
	wantRedirect(t, "link form never", resp, body, path+"?done=link#link-title")
	if f := stored(); !f.Link.ExpiresAt.IsZero() {
		t.Errorf("never left %v", f.Link.ExpiresAt)
	}

	// Mistakes: 422, the message on the form, the input kept, not the password.
	for name, form := range map[string]url.Values{
		"past date":         {"expiry": {"at"}, "expires_at": {"2001-01-01T00:00"}, "max_downloads": {"7"}},
		"no date":           {"expiry": {"at"}, "expires_at": {""}, "max_downloads": {"7"}},
		"bad limit":         {"expiry": {"keep"}, "max_downloads": {"many"}},
		"one-time and 7":    {"expiry": {"keep"}, "max_downloads": {"7"}, "one_time": {"yes"}},
		"short password":    {"expiry": {"keep"}, "max_downloads": {"7"}, "password": {"abc"}},
		"password and none": {"expiry": {"keep"}, "max_downloads": {"7"}, "password": {"abcdefgh"}, "remove_password": {"yes"}},
		"unknown expiry":    {"expiry": {"forever"}, "max_downloads": {"7"}},
	} {
		resp, body := fx.post(path+"/link", form)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `class="field-error"`) && !strings.Contains(body, `id="link-error"`) {
			t.Errorf("%s: got %d, want 422 with the error on the form", name, resp.StatusCode)
		}
		if strings.Contains(body, "abcdefgh") || strings.Contains(body, `value="abc"`) {
			t.Errorf("%s: the page shows the password back", name)
		}
		if form.Get("max_downloads") == "7" && !strings.Contains(body, `name="max_downloads" type="number" min="0" step="1" inputmode="numeric" value="7"`) {
			t.Errorf("%s: the limit typed was not kept", name)
		}
	}
	if f := stored(); f.Link.MaxDownloads != 5 {
		t.Errorf("refused forms changed the link: %+v", f.Link)
	}

	// Without the CSRF token: refused, nothing changed.
	resp, _ = fx.b.post(path+"/link", url.Values{"expiry": {"1d"}, "max_downloads": {""}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("link form without CSRF: got %d, want 403", resp.StatusCode)
	}
	if f := stored(); !f.Link.ExpiresAt.IsZero() {
		t.Errorf("a form without CSRF changed the link: %+v", f.Link)
	}
}

// TestAppLinkStates shows an expired and a used-up link as such.
func TestAppLinkStates(t *testing.T) {
	fx := newFilesFixture(t, fileframe.PlanFree)
	ctx := context.Background()
	past := fx.e.file(fx.acct, "old.pdf", []byte("old"))
	if _, err := fx.e.store.SetLink(ctx, past.ID, fileframe.Link{ExpiresAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	used := fx.e.file(fx.acct, "used.pdf", []byte("used"))
	if _, err := fx.e.store.SetLink(ctx, used.ID, fileframe.Link{MaxDownloads: 1}); err != nil {
		t.Fatal(err)
	}
	if err := fx.e.store.ClaimDownload(ctx, used.ID, "c1", time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := fx.e.store.FinishDownload(ctx, used.ID, "c1", true); err != nil {
		t.Fatal(err)
	}
	_, list := fx.b.get("/files")
	for _, want := range []string{">Expired<", ">Used up<", "One-time · 1 of 1 download"} {
		if !strings.Contains(list, want) {
			t.Errorf("the file list lacks %q", want)
		}
	}
}

// TestUploadFormLink sets a new file's link in the plain upload form: the
// fields before the files.
func TestUploadFormLink(t *testing.T) {
	e := newTestEnv(t, withFastPasswords(t))
	c, a := signedInUploader(e, "form@example.com", fileframe.PlanFree)
	ct, body := multipartBody(t, "csrf", c.csrf, "expiry", "30d", "one_time", "yes", "password", "s3cret pass", "@one.bin", "hello")
	resp, _ := (&tusClient{b: c.b}).request(http.MethodPost, e.app.URL+uploadFormPath, body, "Content-Type", ct)
	files, _ := e.store.FilesByAccount(context.Background(), a.ID)
	if resp.StatusCode != http.StatusSeeOther || len(files) != 1 {
		t.Fatalf("upload with link settings: %d, %d files", resp.StatusCode, len(files))
	}
	f := files[0].File
	if d := time.Until(f.Link.ExpiresAt); d < 30*24*time.Hour-time.Minute || f.Link.MaxDownloads != 1 || !checkPassword(t, e, f.ID, "s3cret pass") {
		t.Errorf("the upload form's link: %+v", f.Link)
	}
	ct, body = multipartBody(t, "csrf", c.csrf, "password", "abc", "@two.bin", "hello")
	resp, _ = (&tusClient{b: c.b}).request(http.MethodPost, e.app.URL+uploadFormPath, body, "Content-Type", ct)
	if files, _ := e.store.FilesByAccount(context.Background(), a.ID); resp.StatusCode != http.StatusBadRequest || len(files) != 1 {
		t.Errorf("upload with a short password: %d, %d files; want 400 and nothing stored", resp.StatusCode, len(files))
	}
}
