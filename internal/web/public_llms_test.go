package web

import (
	"encoding/json"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/fileframe/fileframe/docs"
	"github.com/fileframe/fileframe/internal/fileframe"
)

// TestDiscoveryDocs: /llms.txt and /llms-full.txt are docs/llms.txt and
// docs/api.md as Markdown, with this instance's address for BASE_URL,
// cacheable for a while and revalidated by ETag.
func TestDiscoveryDocs(t *testing.T) {
	e := newTestEnv(t)
	base := e.app.URL
	for _, tt := range []struct {
		path string
		want string
	}{
		{"/llms.txt", docs.ForBase(docs.LLMs(), base)},
		{"/llms-full.txt", ""},
	} {
		t.Run(tt.path, func(t *testing.T) {
			resp, body := e.appGet(tt.path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("got %d, want 200", resp.StatusCode)
			}
			for name, want := range map[string]string{
				"Content-Type":           "text/markdown; charset=utf-8",
				"Cache-Control":          "public, max-age=300",
				"X-Content-Type-Options": "nosniff",
			} {
				if got := resp.Header.Get(name); got != want {
					t.Errorf("%s: got %q, want %q", name, got, want)
				}
			}
			text := string(body)
			if tt.want != "" && text != tt.want {
				t.Errorf("the body is not docs/llms.txt for %s", base)
			}
			if tt.path == "/llms-full.txt" {
				_, apiBody, _ := strings.Cut(docs.API(), "\n")
				if !strings.HasPrefix(text, "# Fileframe API\n\n> The whole API reference of the Fileframe instance at "+base+" ") ||
					!strings.HasSuffix(text, docs.ForBase(apiBody, base)) {
					t.Errorf("the body is not docs/api.md under its header:\n%.600s", text)
				}
			}
			if strings.Contains(text, "BASE_URL/") || !strings.Contains(text, base+"/api/files") {
				t.Errorf("the addresses are not the instance's (%s)", base)
			}
			etag := resp.Header.Get("ETag")
			if resp, _ := e.appGet(tt.path, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
				t.Errorf("If-None-Match %s: got %d, want 304", etag, resp.StatusCode)
			}
			req, _ := http.NewRequest(http.MethodPost, e.app.URL+tt.path, nil)
			if resp, _ := e.do(req); resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("POST: got %d, want 405", resp.StatusCode)
			}
		})
	}
}

// TestDiscoveryLinks: the /api/ 404 and the home page lead to /llms.txt.
func TestDiscoveryLinks(t *testing.T) {
	e := newTestEnv(t)
	resp, body := e.appGet("/api/v2/files")
	var p problem
	if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != http.StatusNotFound || p.Code != "not_found" {
		t.Fatalf("GET /api/v2/files: got %d %s", resp.StatusCode, body)
	}
	if want := "See /llms.txt for the API, or /api/openapi.json."; !strings.HasSuffix(p.Detail, want) {
		t.Errorf("the /api/ 404's detail is %q, want it to end %q", p.Detail, want)
	}

	e.account(fileframe.PlanFree) // past the one-time setup
	resp, _ = e.appGet("/")
	if got, want := resp.Header.Get("Link"), `</llms.txt>; rel="help"; type="text/markdown"`; got != want {
		t.Errorf("/: Link %q, want %q", got, want)
	}
	// The page / sends a visitor to, and every other page of the app.
	resp, body = e.appGet("/login")
	doc := parsePage(t, body)
	var help, footer bool
	for _, l := range findAll(doc, "link") {
		if rel, _ := htmlAttr(l, "rel"); rel == "help" {
			href, _ := htmlAttr(l, "href")
			help = href == "/llms.txt"
		}
	}
	if f := findTag(doc, "footer"); f != nil {
		for _, a := range findAll(f, "a") {
			href, _ := htmlAttr(a, "href")
			footer = footer || href == "/llms.txt"
		}
	}
	if resp.StatusCode != http.StatusOK || !help || !footer {
		t.Errorf("/login: status %d, <link rel=help href=/llms.txt> %v, a footer link to /llms.txt %v", resp.StatusCode, help, footer)
	}
}

// TestAgentFromLLMsText: an agent given only the base URL and a general
// key reads /llms.txt, and with only what it says uploads a file, publishes
// a page for it and gets the public link: three calls.
func TestAgentFromLLMsText(t *testing.T) {
	e := newTestEnv(t)
	key, _ := e.key(e.account(fileframe.PlanAgency), "")

	_, body := e.appGet("/llms.txt")
	llms := string(body)
	flow := llms[strings.Index(llms, "## The flow"):]
	endpoint := func(what string) string {
		t.Helper()
		m := regexp.MustCompile("`POST (" + regexp.QuoteMeta(e.app.URL) + "[^`\\s]*" + regexp.QuoteMeta(what) + ")`").FindStringSubmatch(flow)
		if m == nil {
			t.Fatalf("the flow in /llms.txt names no POST …%s", what)
		}
		return m[1]
	}
	call := func(req *http.Request, want int, into any) {
		t.Helper()
		req.Header.Set("Authorization", "Bearer "+key)
		resp, body := e.do(req)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: got %d, want %d: %s", req.Method, req.URL, resp.StatusCode, want, body)
		}
		if err := json.Unmarshal(body, into); err != nil {
			t.Fatal(err)
		}
	}

	// 1. Upload: "multipart with one part named `file`"; keep `id`.
	var buf strings.Builder
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "report.pdf")
	fw.Write([]byte("%PDF-1.7 the report"))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, endpoint("/api/files"), strings.NewReader(buf.String()))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var uploaded struct{ ID string }
	call(req, http.StatusCreated, &uploaded)

	// 2. Publish: the revisions endpoint of the flow, with {id} the
	// upload's id: {"html", "publish": true}.
	html := `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Report</title>` +
		`<style>body{padding-bottom:calc(80px + env(safe-area-inset-bottom))}</style></head>` +
		`<body><h1 data-fileframe="name"></h1><p>Use the download button at the bottom right.</p></body></html>`
	page, _ := json.Marshal(map[string]any{"html": html, "publish": true})
	req, _ = http.NewRequest(http.MethodPost, strings.Replace(endpoint("/page/revisions"), "{id}", uploaded.ID, 1), strings.NewReader(string(page)))
	req.Header.Set("Content-Type", "application/json")
	var published struct {
		PublicURL string
		Warnings  []any
	}
	call(req, http.StatusCreated, &published)
	if len(published.Warnings) != 0 {
		t.Errorf("a page written by llms.txt's rules has warnings: %v", published.Warnings)
	}

	// 3. Give the user publicUrl: it is the file's page, with the custom page.
	resp, body := e.get(published.PublicURL)
	if resp.StatusCode != http.StatusOK || pageKind(t, body) != "outer" {
		t.Errorf("%s: got %d %s, want the published page", published.PublicURL, resp.StatusCode, pageKind(t, body))
	}
}

// findAll returns every element named tag under n, in document order.
func findAll(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d.Data == tag {
			out = append(out, d)
		}
	}
	return out
}
