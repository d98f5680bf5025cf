package web

// The whole journey of the web application in a real browser, as a new
// operator and a new customer live it: the setup screen, a second person
// signing up, an upload with its progress bar, a page-bound key, a page
// posted with it, the page at the public link, unpublishing it and the
// template appearance that then shows.

import (
	"bytes"
	"context"
	"encoding/json"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// journeyTab is one person's browser: a browser context of its own (its own
// cookies) with one tab, on the server of the journey.
type journeyTab struct {
	*browserEnv
	who string
}

// newJourneyTab opens a fresh browser context with one tab on env.
func newJourneyTab(t *testing.T, env *testEnv, who string) *journeyTab {
	t.Helper()
	root := sharedChromium.browser(t)
	tab, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	watchdog := time.AfterFunc(actionTimeout, cancel)
	err := chromedp.Do(tab)
	if !watchdog.Stop() || err != nil {
		t.Fatalf("opening %s's tab: %v", who, err)
	}
	b := &browserEnv{testEnv: env, tab: tab, contextID: chromedp.FromContext(tab).BrowserContextID}
	return &journeyTab{browserEnv: b, who: who}
}

// path returns the path (and query) of the tab's current address.
func (j *journeyTab) path(t *testing.T) string {
	t.Helper()
	return eval[string](t, j.tab, "location.pathname + location.search")
}

// fill sets the value of the form field sel.
func (j *journeyTab) fill(t *testing.T, sel, value string) {
	t.Helper()
	run(t, j.tab, chromedp.SetValue(chromedp.CSS(sel), value))
}

// submit clicks sel, which sends a form, and waits until the tab shows a
// page whose path matches want and has loaded.
func (j *journeyTab) submit(t *testing.T, sel string, want *regexp.Regexp) {
	t.Helper()
	before := eval[float64](t, j.tab, "performance.timeOrigin")
	sjson, _ := json.Marshal(sel)
	if !eval[bool](t, j.tab, `(() => { const b = document.querySelector(`+string(sjson)+`); if (!b) return false; b.scrollIntoView(); b.click(); return true; })()`) {
		t.Fatalf("%s at %s: no %s on the page:\n%s", j.who, j.path(t), sel, j.text(t))
	}
	poll(t, j.who+": the page after "+sel, func() bool {
		ctx, cancel := context.WithTimeout(j.tab, actionTimeout)
		defer cancel()
		var st struct {
			Origin float64 `json:"origin"`
			Path   string  `json:"path"`
			Ready  string  `json:"ready"`
		}
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({origin: performance.timeOrigin, path: location.pathname, ready: document.readyState})`))
		if err == nil {
			err = json.Unmarshal([]byte(raw), &st)
		}
		return err == nil && st.Origin != before && st.Ready == "complete" && want.MatchString(st.Path)
	})
}

// throttleUploads limits what the tab sends to bytesPerSecond (-1: no
// limit), as a slow connection would.
func (j *journeyTab) throttleUploads(t *testing.T, bytesPerSecond float64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(j.tab, actionTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	_, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{DownloadThroughput: -1, UploadThroughput: bytesPerSecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// recordProgress makes the page record every value the progress bar of
// its first upload takes (progressSeen reads them).
func (j *journeyTab) recordProgress(t *testing.T) {
	t.Helper()
	eval[bool](t, j.tab, `(() => {
		window.progressSeen = [];
		setInterval(() => {
			const bar = document.querySelector(".upload-item progress");
			if (bar && window.progressSeen[window.progressSeen.length - 1] !== bar.value) window.progressSeen.push(bar.value);
		}, 10);
		return true;
	})()`)
}

// progressSeen returns the values recorded since recordProgress.
func (j *journeyTab) progressSeen(t *testing.T) []float64 {
	t.Helper()
	var seen []float64
	if err := json.Unmarshal([]byte(eval[string](t, j.tab, `JSON.stringify(window.progressSeen)`)), &seen); err != nil {
		t.Fatal(err)
	}
	return seen
}

// text returns the visible text of the tab's page.
func (j *journeyTab) text(t *testing.T) string {
	t.Helper()
	return eval[string](t, j.tab, "document.body.innerText")
}

// mustSee fails unless the page's text contains each of want.
func (j *journeyTab) mustSee(t *testing.T, want ...string) {
	t.Helper()
	text := j.text(t)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Fatalf("%s at %s: the page does not say %q; it says:\n%s", j.who, j.path(t), w, text)
		}
	}
}

func TestBrowserJourney(t *testing.T) {
	env := newTestEnv(t, func(c *Config) {
		c.BaseURL.Host = appHost + ":" + c.BaseURL.Port()
		c.ContentOrigin.Host = contentHost + ":" + c.ContentOrigin.Port()
		c.Signup = true
		c.UploadDir = filepath.Join(t.TempDir(), "uploads")
	})
	app := env.srv.AppOrigin()
	admin := newJourneyTab(t, env, "the admin")
	maya := newJourneyTab(t, env, "Maya")

	// 1. A fresh instance sends everyone to its one-time setup screen,
	// which creates the admin on Agency and signs them in.
	admin.navigate(t, app+"/")
	if p := admin.path(t); p != "/setup" {
		t.Fatalf("a fresh instance shows %s, want /setup", p)
	}
	admin.mustSee(t, "Welcome to Fileframe")
	admin.fill(t, "#email", "admin@agency.test")
	admin.fill(t, "#password", "a long admin password")
	admin.submit(t, "form[action^='/setup'] button[type=submit]", regexp.MustCompile(`^/files$`))
	admin.mustSee(t, "admin@agency.test")

	// 2. Maya signs up (a Free account), and the admin moves her to Agency.
	maya.navigate(t, app+"/signup")
	maya.fill(t, "#email", "maya@studio.test")
	maya.fill(t, "#password", "maya's long password")
	maya.submit(t, "form[action^='/signup'] button[type=submit]", regexp.MustCompile(`^/files$`))
	maya.mustSee(t, "maya@studio.test")
	mayaAcct, err := env.store.AccountByEmail(t.Context(), "maya@studio.test")
	if err != nil || mayaAcct.Plan != fileframe.PlanFree {
		t.Fatalf("after sign-up: account %+v, %v; want a Free account", mayaAcct, err)
	}
	admin.navigate(t, app+"/admin")
	admin.mustSee(t, "maya@studio.test")
	run(t, admin.tab, chromedp.SetValue(chromedp.CSS("#plan-"+string(mayaAcct.ID)), string(fileframe.PlanAgency)))
	admin.submit(t, "form[action^='/admin/accounts/"+string(mayaAcct.ID)+"/plan'] button[type=submit]", regexp.MustCompile(`^/admin$`))
	if a, _ := env.store.AccountByID(t.Context(), mayaAcct.ID); a.Plan != fileframe.PlanAgency {
		t.Fatalf("after the admin set Agency: Maya is on %q", a.Plan)
	}

	// 3. Maya uploads a file through the upload panel. The connection is
	// throttled so that the upload takes a while: the progress bar must
	// move through values between 0 and 100 before the file is listed.
	content := make([]byte, 3<<20)
	mrand.NewChaCha8([32]byte{3}).Read(content)
	src := filepath.Join(t.TempDir(), "Spring campaign.mov")
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	maya.navigate(t, app+"/files")
	maya.throttleUploads(t, 1<<20)
	// Record every value the bar takes.
	maya.recordProgress(t)
	run(t, maya.tab, chromedp.SetUploadFiles(chromedp.CSS("#upload-file"), []string{src}))
	// Finished, and the recorder (every 10 ms) has seen the bar's last
	// value: reading it at once could miss the 100 set with "done".
	poll(t, "the upload to finish", func() bool {
		return eval[bool](t, maya.tab, `(() => {
			const bar = document.querySelector(".upload-item.upload-done progress");
			return !!bar && window.progressSeen[window.progressSeen.length - 1] === bar.value;
		})()`)
	})
	maya.throttleUploads(t, -1)
	seen := maya.progressSeen(t)
	t.Logf("the progress bar took the values %v", seen)
	between := 0
	for _, v := range seen {
		if v > 0 && v < 100 {
			between++
		}
	}
	if between == 0 || seen[len(seen)-1] != 100 {
		t.Errorf("the progress bar took the values %v; want some between 0 and 100, then 100", seen)
	}
	maya.mustSee(t, "Uploaded")
	files, err := env.store.FilesByAccount(t.Context(), mayaAcct.ID)
	if err != nil || len(files) != 1 || files[0].Name != "Spring campaign.mov" {
		t.Fatalf("Maya's files after the upload: %+v, %v; want Spring campaign.mov", files, err)
	}
	file := files[0].File
	// The list refreshes in place and shows the new file.
	poll(t, "the file list to show the upload", func() bool {
		return eval[bool](t, maya.tab, `!!document.querySelector("a[href='/files/`+string(file.ID)+`']")`)
	})
	// The test's own requests go to the listener's loopback address, with
	// the app's host name (the browser's) in Host.
	resp, got := env.get(env.app.URL + "/f/" + file.Slug + "/download")
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, content) {
		t.Fatalf("download of the uploaded file: %d, %d bytes; want 200 and the %d bytes uploaded", resp.StatusCode, len(got), len(content))
	}

	// 4. On the file's page, one click makes a page-bound key, shown once
	// with a curl command for this file.
	maya.navigate(t, app+"/files/"+string(file.ID))
	maya.mustSee(t, "Spring campaign.mov", "Create page-bound key")
	// The key is shown in the answer to the POST itself, never in an address.
	maya.submit(t, "form[action^='/files/"+string(file.ID)+"/keys'] button[type=submit]", regexp.MustCompile(`^/files/`+string(file.ID)+`/keys$`))
	key := eval[string](t, maya.tab, `document.querySelector("#new-key").value`)
	if !strings.HasPrefix(key, fileframe.PageKeyPrefix) {
		t.Fatalf("the page shows the key %q, want a page-bound key (%s…)", key, fileframe.PageKeyPrefix)
	}
	maya.mustSee(t, "curl", key)

	// 5. An agent posts a page with it, as curl would, and publishes it.
	const marker = "journey-page-7f3a"
	page := `<!doctype html><html><head><meta charset="utf-8"><title>Spring</title></head><body><h1 id="hello">` + marker + `</h1></body></html>`
	body, _ := json.Marshal(map[string]any{"html": page, "publish": true})
	req, _ := http.NewRequest(http.MethodPost, env.app.URL+"/api/campaign/custom-html", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, answer := env.do(req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/campaign/custom-html with the page-bound key: %d %s", resp.StatusCode, answer)
	}

	// 6. A visitor at the public link sees that page, in its frame on the
	// content origin, with the download control on top.
	visitor := newJourneyTab(t, env, "a visitor")
	visitor.navigate(t, app+"/f/"+file.Slug)
	frame := visitor.frame(t)
	poll(t, "the custom page in the visitor's frame", func() bool {
		ctx, cancel := context.WithTimeout(frame, actionTimeout)
		defer cancel()
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		return err == nil && strings.Contains(text, marker)
	})
	visitor.mustSee(t, "Spring campaign.mov")

	// 7. Maya unpublishes it from the file page; the page shows its state.
	maya.navigate(t, app+"/files/"+string(file.ID))
	maya.mustSee(t, "Published r1")
	maya.submit(t, "form[action^='/files/"+string(file.ID)+"/unpublish'] button[type=submit]", regexp.MustCompile(`^/files/`+string(file.ID)+`$`))
	maya.mustSee(t, "Draft")

	// 8. She gives the file a template appearance; the public link now
	// shows it, with no frame.
	maya.navigate(t, app+"/files/"+string(file.ID)+"/appearance")
	run(t, maya.tab, chromedp.Click(chromedp.CSS("input[name=template][value=bold]")))
	maya.fill(t, "#ap-headline", "Spring is here")
	maya.submit(t, "button[name=action][value=save]", regexp.MustCompile(`^/files/`+string(file.ID)))
	visitor.navigate(t, app+"/f/"+file.Slug)
	visitor.mustSee(t, "Spring is here", "Spring campaign.mov")
	if n := eval[int](t, visitor.tab, `document.querySelectorAll("iframe").length`); n != 0 {
		t.Errorf("the public link shows %d frames after unpublishing, want the template page alone", n)
	}
	if !eval[bool](t, visitor.tab, `!!document.querySelector("a[href$='/download']")`) {
		t.Errorf("the template page has no download link")
	}
}

// TestBrowserUploadResumes drops the connection of an upload in the middle:
// the upload panel resumes it where the server's copy stopped, without
// starting again from zero, and the stored file is the one chosen, byte for
// byte.
func TestBrowserUploadResumes(t *testing.T) {
	env := newTestEnv(t, func(c *Config) {
		c.BaseURL.Host = appHost + ":" + c.BaseURL.Port()
		c.ContentOrigin.Host = contentHost + ":" + c.ContentOrigin.Port()
		c.UploadDir = filepath.Join(t.TempDir(), "uploads")
	})
	acct := env.member("resume@studio.test", fileframe.PlanPro)
	tab := newJourneyTab(t, env, "the uploader")
	tab.navigate(t, env.srv.AppOrigin()+"/login")
	tab.fill(t, "#email", "resume@studio.test")
	tab.fill(t, "#password", testPassword)
	tab.submit(t, "form[action^='/login'] button[type=submit]", regexp.MustCompile(`^/files$`))

	content := make([]byte, 4<<20)
	mrand.NewChaCha8([32]byte{4}).Read(content)
	src := filepath.Join(t.TempDir(), "Long interview.wav")
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	tab.navigate(t, env.srv.AppOrigin()+"/files")
	tab.throttleUploads(t, 1<<20)
	tab.recordProgress(t)
	run(t, tab.tab, chromedp.SetUploadFiles(chromedp.CSS("#upload-file"), []string{src}))
	progress := func() float64 {
		return eval[float64](t, tab.tab, `(document.querySelector(".upload-item progress") || {value: 0}).value`)
	}
	poll(t, "the upload to pass 30%", func() bool { return progress() >= 30 })
	// The server drops every connection, the upload's included.
	env.app.CloseClientConnections()
	atDrop := progress()
	poll(t, "the upload to finish after the dropped connection", func() bool {
		return eval[bool](t, tab.tab, `!!document.querySelector(".upload-item.upload-done")`)
	})
	seen := tab.progressSeen(t)
	t.Logf("dropped at %v%%; the progress bar took the values %v", atDrop, seen)
	// After the drop the bar may step back to what the server had stored,
	// but never to the start.
	for i, v := range seen {
		if v >= atDrop {
			for _, w := range seen[i:] {
				if w < atDrop/2 {
					t.Errorf("after the drop at %v%% the upload went back to %v%%: it started again instead of resuming", atDrop, w)
					break
				}
			}
			break
		}
	}
	// A resume asks the server how much it has (HEAD) before it goes on.
	if !regexp.MustCompile(`"method":"HEAD","path":"/uploads/`).MatchString(env.logs.String()) {
		t.Errorf("no HEAD of the upload in the access log: the upload did not resume after the drop")
	}
	files, err := env.store.FilesByAccount(t.Context(), acct.ID)
	if err != nil || len(files) != 1 {
		t.Fatalf("files after the resumed upload: %+v, %v; want one", files, err)
	}
	if got := env.downloadLink(env.app.URL + "/f/" + files[0].Slug); !bytes.Equal(got, content) {
		t.Fatalf("the resumed upload stored %d bytes that differ from the %d chosen", len(got), len(content))
	}
}
