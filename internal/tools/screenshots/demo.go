package main

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	pw "github.com/fileframe/fileframe/internal/password"
)

// stage is how far the demo instance has been filled; every screen names the
// stage it shows, and the screens are taken in stage order.
type stage int

const (
	// fresh: no account yet, the setup screen.
	fresh stage = iota
	// accounts: the admin (made through /setup) and a member (through
	// /signup), neither with files yet.
	accounts
	// seeded: files, keys, custom pages and more accounts.
	seeded
)

// person is who looks at a screen, in a browser context of their own.
type person string

const (
	visitor person = "a signed-out visitor"
	admin   person = "the admin, on Agency" // made on the setup screen
	member  person = "a member, on Free"    // made through /signup
	sender  person = "a stranger sending files through a request"
)

// The demo's people. Passwords only need to pass the app's rules.
const (
	adminEmail  = "maya@northwind.studio"
	memberEmail = "leo.martin@example.com"
	password    = "correct horse battery staple"
)

//go:embed pages
var pagesFS embed.FS

// demoFile is a file the demo stores for an account.
type demoFile struct {
	id    string // the screens' name for it
	owner person
	name  string
	size  int64
	age   time.Duration // how long before demoNow it was uploaded
	// downloads is how many downloads visitors start.
	downloads int
	// fileID and slug are fixed, where the store would draw random ones,
	// so that addresses in the pictures stay the same from run to run.
	fileID fileframe.FileID
	slug   string
}

// demoFiles are the files of the seeded stage, newest first per owner.
var demoFiles = []demoFile{
	{"lookbook", admin, "Spring 2026 lookbook.pdf", 8_412_331, 2 * time.Hour, 37, "f_Lk3vR8nQe2TzWb7X", "q7VbN2xKe9Lm"},
	{"guidelines", admin, "Brand guidelines v3.pdf", 2_138_904, 26 * time.Hour, 0, "f_Gd5pX1sHc8JmYq4R", "Rt4cW8pZa1Hs"},
	{"presskit", admin, "Northwind press kit.zip", 14_702_118, 3 * 24 * time.Hour, 12, "f_Pk9wM4tBf6LsNa2V", "b3KxQ7mTn5Ye"},
	{"invoice", admin, "Invoice 2026-0142.pdf", 184_220, 9 * 24 * time.Hour, 2, "f_In2qZ7yDk5RgCe8U", "Hw8sL2vPd6Qa"},
	{"teaser", admin, "Launch teaser (1080p).mp4", 5_873_402, 16 * 24 * time.Hour, 148, "f_Ts6hJ3uWn9PxBr1K", "m1ZfE6rYc4Tk"},
	{"shoot", admin, "Costa da Morte shoot – selects.zip", 11_260_093, 20 * 24 * time.Hour, 23, "f_Sh8dF2kVq7MzTo5C", "Xp2nA9gUw7Jd"},
	{"offer", admin, "Spring offer 2026 – price sheet.pdf", 1_204_556, 24 * 24 * time.Hour, 31, "f_Of5tK8wPq3NxRa7J", "Yc6mV2pHt9Kd"},
	{"portfolio", member, "Leo Martin – portfolio 2026.pdf", 3_301_876, 5 * time.Hour, 4, "f_Pf1bN6cRx3WvHe9M", "k9DtR3sVb8Nq"},
	{"photos", member, "Wedding selects – Anna & Tom.zip", 6_950_412, 4 * 24 * time.Hour, 9, "f_Ph4gT9aLm2KcSy6Z", "Ej5wM1qHx7Gu"},
}

// demo is the instance being filled, with what the screens need to find
// their pages.
type demo struct {
	in      *instance
	stage   stage
	clients map[person]*client
	files   map[string]fileframe.File
	// previewURL is the draft's preview link, as the API answered it.
	previewURL string
}

func newDemo(in *instance) *demo {
	return &demo{in: in, clients: map[person]*client{
		visitor: newClient(appOrigin, in.hosts), admin: newClient(appOrigin, in.hosts), member: newClient(appOrigin, in.hosts),
		sender: newClient(appOrigin, in.hosts),
	}, files: map[string]fileframe.File{}}
}

// advance fills the instance up to stage to.
func (d *demo) advance(ctx context.Context, to stage) error {
	steps := map[stage]func(context.Context) error{accounts: d.seedAccounts, seeded: d.seedContent}
	for d.stage < to {
		if err := steps[d.stage+1](ctx); err != nil {
			return fmt.Errorf("seeding: %w", err)
		}
		d.stage++
	}
	return nil
}

// seedAccounts makes the admin through the setup screen and the member
// through sign-up, as people would.
func (d *demo) seedAccounts(ctx context.Context) error {
	creds := url.Values{"email": {adminEmail}, "password": {password}}
	if _, err := d.clients[admin].submit(ctx, "/setup", "/setup", creds); err != nil {
		return err
	}
	creds = url.Values{"email": {memberEmail}, "password": {password}}
	_, err := d.clients[member].submit(ctx, "/signup", "/signup", creds)
	return err
}

// seedContent stores the files (in the store: the app does not let an
// upload be dated in the past) and, through the app's forms and API, two
// more accounts for the admin page, API keys, a published custom page with
// its history, a draft, the appearances and some downloads.
func (d *demo) seedContent(ctx context.Context) error {
	st := d.in.store
	owners := map[person]fileframe.Account{}
	for p, email := range map[person]string{admin: adminEmail, member: memberEmail} {
		a, err := st.AccountByEmail(ctx, email)
		if err != nil {
			return err
		}
		owners[p] = a
	}
	if err := d.seedWebhooks(ctx, owners[admin]); err != nil {
		return err
	}
	now := demoNow
	for i, f := range demoFiles {
		file, err := d.storeFile(ctx, fileframe.File{
			ID: f.fileID, Slug: f.slug, AccountID: owners[f.owner].ID, Name: f.name, Size: f.size, CreatedAt: now.Add(-f.age),
		}, uint64(i))
		if err != nil {
			return err
		}
		d.files[f.id] = file
	}
	if err := d.seedPreviews(ctx, owners); err != nil {
		return err
	}

	// The admin page lists two more people who signed up: a film studio
	// the admin moved to Pro, with a file, and an account the admin
	// disabled.
	admins := d.clients[admin]
	for _, o := range []struct{ email, action, plan string }{
		{"ops@harbour-films.com", "plan", "pro"},
		{"sam.okafor@example.org", "disable", ""},
	} {
		creds := url.Values{"email": {o.email}, "password": {password}}
		if _, err := newClient(appOrigin, d.in.hosts).submit(ctx, "/signup", "/signup", creds); err != nil {
			return err
		}
		a, err := st.AccountByEmail(ctx, o.email)
		if err != nil {
			return err
		}
		form, fields := "/admin/accounts/"+string(a.ID)+"/"+o.action, url.Values{}
		if o.plan != "" {
			fields.Set("plan", o.plan)
		}
		if _, err := admins.submit(ctx, "/admin", form, fields); err != nil {
			return err
		}
		if o.plan == "pro" {
			showreel, err := d.storeFile(ctx, fileframe.File{
				ID: "f_Hf3sR7eWq2NcLb8T", Slug: "Vh6pQ2nLc9Xw",
				AccountID: a.ID, Name: "Harbour Films showreel 2026.mov", Size: 9_874_113, CreatedAt: now.Add(-6 * 24 * time.Hour),
			}, 100)
			if err != nil {
				return err
			}
			if d.files["showreel"], err = d.protect(ctx, a, showreel); err != nil {
				return err
			}
		}
	}

	// A general key made on the keys page, for the agent that writes the
	// pages, and a page-bound one made on the guidelines' file page, for a
	// review bot.
	answer, err := admins.submit(ctx, "/keys", "/keys", url.Values{"name": {"Campaign agent"}, "expires": {"90"}})
	if err != nil {
		return err
	}
	key := inputValue(answer, "new-key")
	guidelines := "/files/" + string(d.files["guidelines"].ID)
	if answer, err = admins.submit(ctx, guidelines, guidelines+"/keys", url.Values{}); err != nil {
		return err
	}
	bound := inputValue(answer, "new-key")
	if key == "" || bound == "" {
		return fmt.Errorf("the keys page or the file page did not show the new key")
	}

	// The agent posts a first draft of the lookbook's page, then publishes
	// the final one; the review bot leaves the guidelines' page as a draft,
	// which has a preview link.
	lookbook, err := pagesFS.ReadFile("pages/lookbook.html")
	if err != nil {
		return err
	}
	guide, err := pagesFS.ReadFile("pages/guidelines.html")
	if err != nil {
		return err
	}
	first := strings.Replace(string(lookbook), "<em>lookbook</em>", "<em>preview</em>", 1)
	offerA, offerB := offerPages(string(lookbook))
	answers := map[string]pageAnswer{}
	for _, p := range []struct {
		key, file, html string
		publish         bool
	}{
		{key, "lookbook", first, false},
		{key, "lookbook", string(lookbook), true},
		{bound, "guidelines", string(guide), false},
		{key, "offer", offerA, true},
		{key, "offer", offerB, true},
	} {
		answers[p.file], err = admins.postPage(ctx, p.key, string(d.files[p.file].ID), p.html, p.publish)
		if err != nil {
			return fmt.Errorf("posting the %s's page: %w", p.file, err)
		}
	}
	if d.previewURL = answers["guidelines"].PreviewURL; d.previewURL == "" {
		return fmt.Errorf("the API gave the guidelines' draft no preview link")
	}
	if err := d.brand(ctx); err != nil {
		return err
	}
	if err := d.collect(ctx, owners[admin]); err != nil {
		return err
	}
	if err := d.seedStats(ctx, owners[admin]); err != nil {
		return fmt.Errorf("writing the demo's statistics: %w", err)
	}
	if err := d.seedRequest(ctx); err != nil {
		return err
	}
	if err := d.download(ctx); err != nil {
		return err
	}
	return d.deliverWebhooks(ctx)
}

// collect makes the admin's collection of the campaign's files (issue 13),
// with a fixed ID and slug, as the files list's "Make a collection" does.
func (d *demo) collect(ctx context.Context, a fileframe.Account) error {
	var ids []fileframe.FileID
	// The catalogue has real bytes: its first page shows in the list.
	for _, id := range []string{"catalogue", "lookbook", "guidelines", "teaser", "shoot"} {
		ids = append(ids, d.files[id].ID)
	}
	c, err := d.in.store.CreateCollection(ctx, fileframe.File{
		ID: "f_Cl7mB3xRq9VdKs2N", Slug: "Np4tG8wKe2Rc", AccountID: a.ID,
		Name: "Spring 2026 campaign", CreatedAt: demoNow.Add(-time.Hour),
	}, ids, demoNow.Add(-time.Hour))
	if err != nil {
		return fmt.Errorf("making the demo collection: %w", err)
	}
	d.files["campaign"] = c
	return nil
}

// brand gives the admin's download pages the studio's look through the
// appearance editors: the Card template with the studio's logo for the
// account, and each other template on a file of its own (Photo with a
// photograph behind it).
func (d *demo) brand(ctx context.Context) error {
	logo, err := logoPNG()
	if err != nil {
		return err
	}
	photo, err := backgroundJPEG()
	if err != nil {
		return err
	}
	for _, a := range []struct {
		file                                string // "" for the account's
		template, headline, message, accent string
		images                              []upload
	}{
		{"", "card", "Northwind Studio", "Thanks for working with us. Your files are ready; questions go to hello@northwind.studio.", "#c8643b",
			[]upload{{"logo", "northwind-logo.png", "image/png", logo}}},
		{"invoice", "minimal", "Invoice 2026-0142", "Payable within 30 days. Thank you for your business.", "#1d4ed8", nil},
		{"teaser", "bold", "Spring 2026 is coming", "Forty seconds of linen, salt and light. Embargoed until 20 March.", "#c8643b", nil},
		{"shoot", "photo", "Costa da Morte, day two", "Sixty selects from the beach shoot, graded and ready for layout.", "#0f766e",
			[]upload{{"background", "costa-da-morte-dusk.jpg", "image/jpeg", photo}}},
	} {
		editor := "/appearance"
		if a.file != "" {
			editor = "/files/" + string(d.files[a.file].ID) + "/appearance"
		}
		fields := url.Values{"action": {"save"}, "template": {a.template}, "headline": {a.headline}, "message": {a.message}, "accent": {a.accent}}
		if _, err := d.clients[admin].submitFiles(ctx, editor, editor, fields, a.images...); err != nil {
			return fmt.Errorf("saving the appearance at %s: %w", editor, err)
		}
	}
	return nil
}

// download has visitors start each file's downloads through its link. The
// app counts a download when its first bytes go out, so each asks for the
// first kilobyte only (as a download manager does); the counts reach the
// store in the server's next batch.
func (d *demo) download(ctx context.Context) error {
	visitors := d.clients[visitor]
	for _, f := range demoFiles {
		for range f.downloads {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, appOrigin+d.files[f.id].URL()+"/download", nil)
			if err != nil {
				return err
			}
			req.Header.Set("Range", "bytes=0-1023")
			if _, _, err := visitors.do(req); err != nil {
				return err
			}
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, f := range demoFiles {
		for {
			got, err := d.in.store.FileByID(ctx, d.files[f.id].ID)
			if err != nil {
				return err
			}
			if got.Downloads >= int64(f.downloads) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: %d downloads counted, want %d", f.name, got.Downloads, f.downloads)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// protect gives the film studio's account its look (the Bold template,
// its headline and a logo) and puts a password on its showreel's link,
// revealing the file's name: the password page's screen.
func (d *demo) protect(ctx context.Context, a fileframe.Account, f fileframe.File) (fileframe.File, error) {
	logo, err := logoPNG()
	if err != nil {
		return f, err
	}
	info, err := d.in.blobs.Put(ctx, bytes.NewReader(logo))
	if err != nil {
		return f, err
	}
	look := fileframe.Appearance{Template: "bold", Headline: "Harbour Films", Accent: "#0f766e", LogoKey: info.Key}
	if err := d.in.store.SetAccountAppearance(ctx, a.ID, look, 0, demoNow); err != nil {
		return f, err
	}
	h, err := pw.NewHasher(pw.DefaultParams(), pw.Budget{})
	if err != nil {
		return f, err
	}
	hash, err := h.Hash(ctx, password)
	if err != nil {
		return f, err
	}
	return d.in.store.SetLink(ctx, f.ID, fileframe.Link{PasswordHash: hash, Reveal: fileframe.RevealName})
}

// storeFile stores f.Size bytes of noise (seeded, so every run stores the
// same bytes) and then f, with the type its name says, as `fileframe file
// add` does.
func (d *demo) storeFile(ctx context.Context, f fileframe.File, seed uint64) (fileframe.File, error) {
	info, err := d.in.blobs.Put(ctx, io.LimitReader(rand.NewChaCha8([32]byte{byte(seed)}), f.Size))
	if err != nil {
		return fileframe.File{}, err
	}
	f.BlobKey = info.Key
	if f.ContentType = mime.TypeByExtension(path.Ext(f.Name)); f.ContentType == "" {
		f.ContentType = "application/octet-stream"
	}
	return d.in.store.CreateFile(ctx, f)
}

// seedPreviews stores the files whose links show previews, with real
// bytes: the member's photograph (an image on the default page) and the
// admin's catalogue (a PDF's first page on the admin's Card template).
func (d *demo) seedPreviews(ctx context.Context, owners map[person]fileframe.Account) error {
	photo, err := backgroundJPEG()
	if err != nil {
		return err
	}
	catalogue, err := pagesFS.ReadFile("pages/catalogue.pdf")
	if err != nil {
		return err
	}
	for _, p := range []struct {
		id, name, fileID, slug string
		owner                  person
		age                    time.Duration
		data                   []byte
	}{
		{"dusk", "Costa da Morte at dusk.jpg", "f_Dk7sQ2mWx4RtNe8B", "Tn3kW7xQa2Lp", member, 3 * time.Hour, photo},
		{"catalogue", "Northwind catalogue 2026.pdf", "f_Ct4vB9nRq6MzKe2W", "Qz8pN3vKc5Wr", admin, 30 * time.Hour, catalogue},
	} {
		info, err := d.in.blobs.Put(ctx, bytes.NewReader(p.data))
		if err != nil {
			return err
		}
		f, err := d.in.store.CreateFile(ctx, fileframe.File{
			ID: fileframe.FileID(p.fileID), Slug: p.slug, AccountID: owners[p.owner].ID, Name: p.name, Size: info.Size,
			BlobKey: info.Key, ContentType: mime.TypeByExtension(path.Ext(p.name)), CreatedAt: demoNow.Add(-p.age),
		})
		if err != nil {
			return err
		}
		d.files[p.id] = f
	}
	return nil
}
